CREATE TABLE `customers` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`uid` text,
	`email` text,
	`name` text,
	`created_at` integer NOT NULL,
	`withdrawn_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `customers_store_uid` ON `customers` (`store_id`,`uid`);--> statement-breakpoint
CREATE UNIQUE INDEX `customers_store_email` ON `customers` (`store_id`,`email`);