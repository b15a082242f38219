DROP INDEX `payment_attempts_key`;--> statement-breakpoint
DROP INDEX `payment_attempts_status`;--> statement-breakpoint
CREATE INDEX `payment_attempts_confirming` ON `payment_attempts` (`updated_at`) WHERE status = 'CONFIRMING';--> statement-breakpoint
DROP INDEX `payments_checkout`;