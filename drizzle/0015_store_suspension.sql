ALTER TABLE `stores` ADD `suspended_at` integer;--> statement-breakpoint
ALTER TABLE `stores` ADD `suspension_reason` text;