DROP INDEX `events_store_created`;--> statement-breakpoint
CREATE INDEX `events_store` ON `events` (`store_id`);--> statement-breakpoint
CREATE INDEX `events_created` ON `events` (`created_at`);