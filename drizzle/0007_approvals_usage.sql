CREATE TABLE `approval_requests` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`status` text NOT NULL,
	`operation_id` text NOT NULL,
	`operation_name` text NOT NULL,
	`reason` text NOT NULL,
	`method` text NOT NULL,
	`path` text NOT NULL,
	`params` text NOT NULL,
	`query` text NOT NULL,
	`body` text NOT NULL,
	`target_type` text,
	`target_id` text,
	`idempotency_key` text,
	`fingerprint` text NOT NULL,
	`requester_kind` text NOT NULL,
	`requester_token_id` text NOT NULL,
	`requester_user_id` text NOT NULL,
	`requester_name` text NOT NULL,
	`owner_only` integer NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`decided_at` integer,
	`decided_by` text,
	`notified_at` integer,
	`result` text
);
--> statement-breakpoint
CREATE INDEX `approval_requests_store_status` ON `approval_requests` (`store_id`,`status`);--> statement-breakpoint
CREATE UNIQUE INDEX `approval_requests_token_key` ON `approval_requests` (`requester_token_id`,`idempotency_key`);--> statement-breakpoint
CREATE TABLE `plan_usage` (
	`store_id` text NOT NULL,
	`month` text NOT NULL,
	`ai_actions` integer NOT NULL,
	PRIMARY KEY(`store_id`, `month`),
	FOREIGN KEY (`store_id`) REFERENCES `stores`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
ALTER TABLE `payments` ADD `pg` text;--> statement-breakpoint
ALTER TABLE `payments` ADD `method` text;--> statement-breakpoint
ALTER TABLE `payments` ADD `pg_transaction_id` text;--> statement-breakpoint
ALTER TABLE `stores` ADD `first_live_order_at` integer;