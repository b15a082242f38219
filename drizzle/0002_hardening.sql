CREATE TABLE `attempt_throttles` (
	`key` text PRIMARY KEY NOT NULL,
	`count` integer NOT NULL,
	`window_start` integer NOT NULL
);
--> statement-breakpoint
DROP TABLE `guest_lookup_failures`;--> statement-breakpoint
ALTER TABLE `authorization_codes` ADD `session_id` text;--> statement-breakpoint
ALTER TABLE `idempotency_keys` ADD `lease_expires_at` integer DEFAULT 0 NOT NULL;