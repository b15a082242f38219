CREATE TABLE `app_allowed_stores` (
	`app_id` text NOT NULL,
	`store_id` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`app_id`, `store_id`),
	FOREIGN KEY (`app_id`) REFERENCES `apps`(`id`) ON UPDATE no action ON DELETE no action
);
