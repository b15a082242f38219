CREATE TABLE `storefront_checks` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`site_id` text NOT NULL,
	`status` text NOT NULL,
	`steps` text NOT NULL,
	`files` text NOT NULL,
	`next_attempt_at` integer,
	`created_at` integer NOT NULL,
	`started_at` integer,
	`finished_at` integer
);
--> statement-breakpoint
CREATE INDEX `storefront_checks_site` ON `storefront_checks` (`site_id`,`status`);--> statement-breakpoint
CREATE INDEX `storefront_checks_due` ON `storefront_checks` (`next_attempt_at`);--> statement-breakpoint
CREATE TABLE `storefront_domains` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`site_id` text NOT NULL,
	`hostname` text NOT NULL,
	`status` text NOT NULL,
	`failure_code` text,
	`verify_value` text NOT NULL,
	`is_primary` integer NOT NULL,
	`held` integer NOT NULL,
	`certificate` text,
	`wait_since` integer NOT NULL,
	`added_at` integer NOT NULL,
	`activated_at` integer,
	`next_attempt_at` integer,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `storefront_domains_store_host` ON `storefront_domains` (`store_id`,`hostname`);--> statement-breakpoint
CREATE INDEX `storefront_domains_host` ON `storefront_domains` (`hostname`);--> statement-breakpoint
CREATE INDEX `storefront_domains_due` ON `storefront_domains` (`next_attempt_at`);--> statement-breakpoint
CREATE TABLE `storefront_editing` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`site_id` text NOT NULL,
	`status` text NOT NULL,
	`started_by` text NOT NULL,
	`url` text,
	`last_active_at` integer NOT NULL,
	`last_work_at` integer NOT NULL,
	`notice_sent_at` integer,
	`next_attempt_at` integer,
	`created_at` integer NOT NULL,
	`closed_at` integer
);
--> statement-breakpoint
CREATE INDEX `storefront_editing_site` ON `storefront_editing` (`site_id`,`status`);--> statement-breakpoint
CREATE INDEX `storefront_editing_status` ON `storefront_editing` (`status`);--> statement-breakpoint
CREATE INDEX `storefront_editing_due` ON `storefront_editing` (`next_attempt_at`);--> statement-breakpoint
CREATE TABLE `storefront_slug_holds` (
	`id` text PRIMARY KEY NOT NULL,
	`slug` text NOT NULL,
	`store_id` text NOT NULL,
	`reason` text NOT NULL,
	`created_at` integer NOT NULL,
	`held_until` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `storefront_slug_holds_slug` ON `storefront_slug_holds` (`slug`,`held_until`);--> statement-breakpoint
CREATE INDEX `storefront_slug_holds_store` ON `storefront_slug_holds` (`store_id`,`created_at`);--> statement-breakpoint
DROP INDEX `storefront_sites_store`;--> statement-breakpoint
ALTER TABLE `storefront_sites` ADD `delete_at` integer;--> statement-breakpoint
CREATE UNIQUE INDEX `storefront_sites_store` ON `storefront_sites` (`store_id`) WHERE status <> 'CLOSED';