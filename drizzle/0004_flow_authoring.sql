CREATE TABLE `flow_app_notifications` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`run_id` text NOT NULL,
	`handle` text NOT NULL,
	`name` text NOT NULL,
	`payload` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`last_error` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `flow_app_notifications_due` ON `flow_app_notifications` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `flow_app_notifications_run` ON `flow_app_notifications` (`run_id`);--> statement-breakpoint
CREATE TABLE `flow_secrets` (
	`store_id` text NOT NULL,
	`name` text NOT NULL,
	`sealed` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`store_id`, `name`)
);
