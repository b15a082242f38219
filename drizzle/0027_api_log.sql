CREATE TABLE `api_logs` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`operation_id` text NOT NULL,
	`method` text NOT NULL,
	`path` text NOT NULL,
	`status` integer NOT NULL,
	`error_code` text,
	`duration_ms` integer NOT NULL,
	`actor_type` text NOT NULL,
	`actor_id` text NOT NULL,
	`trace_id` text NOT NULL,
	`request_id` text NOT NULL,
	`idempotency_key` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `api_logs_store_id` ON `api_logs` (`store_id`,`id`,`trace_id`);--> statement-breakpoint
CREATE INDEX `api_logs_created_at` ON `api_logs` (`created_at`);