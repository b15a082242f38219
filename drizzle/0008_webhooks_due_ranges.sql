DROP INDEX `webhook_deliveries_due`;--> statement-breakpoint
DROP INDEX `webhook_deliveries_webhook_due`;--> statement-breakpoint
CREATE INDEX `webhook_deliveries_due` ON `webhook_deliveries` (`next_attempt_at`,`webhook_id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_webhook_due` ON `webhook_deliveries` (`webhook_id`,`next_attempt_at`);