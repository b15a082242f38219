CREATE TABLE `approval_confirmations` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`approval_id` text NOT NULL,
	`user_id` text NOT NULL,
	`session_id` text NOT NULL,
	`decision` text NOT NULL,
	`code_hash` text NOT NULL,
	`answers` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `approval_confirmations_approval` ON `approval_confirmations` (`store_id`,`approval_id`);