CREATE TABLE `storefront_builds` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`site_id` text NOT NULL,
	`status` text NOT NULL,
	`failure_stage` text,
	`error_code` text,
	`log_tail` text NOT NULL,
	`dependencies` text NOT NULL,
	`files` text NOT NULL,
	`version_id` text,
	`publish` integer NOT NULL,
	`advisories_unavailable_since` integer,
	`next_attempt_at` integer,
	`created_at` integer NOT NULL,
	`started_at` integer,
	`finished_at` integer
);
--> statement-breakpoint
CREATE INDEX `storefront_builds_store` ON `storefront_builds` (`store_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `storefront_builds_due` ON `storefront_builds` (`next_attempt_at`);--> statement-breakpoint
CREATE TABLE `storefront_deployments` (
	`id` text PRIMARY KEY NOT NULL,
	`site_id` text NOT NULL,
	`store_id` text NOT NULL,
	`status` text NOT NULL,
	`steps` text NOT NULL,
	`log` text NOT NULL,
	`error_code` text,
	`build_id` text,
	`next_attempt_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `storefront_deployments_site` ON `storefront_deployments` (`site_id`);--> statement-breakpoint
CREATE INDEX `storefront_deployments_due` ON `storefront_deployments` (`next_attempt_at`);--> statement-breakpoint
CREATE TABLE `storefront_preview_links` (
	`id` text PRIMARY KEY NOT NULL,
	`token_hash` text NOT NULL,
	`store_id` text NOT NULL,
	`version_id` text NOT NULL,
	`created_by` text NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `storefront_preview_links_token` ON `storefront_preview_links` (`token_hash`);--> statement-breakpoint
CREATE TABLE `storefront_publications` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`site_id` text NOT NULL,
	`version_id` text NOT NULL,
	`via` text NOT NULL,
	`published_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `storefront_publications_site` ON `storefront_publications` (`site_id`,`published_at`);--> statement-breakpoint
CREATE TABLE `storefront_site_creations` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `storefront_site_creations_store` ON `storefront_site_creations` (`store_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `storefront_files` (
	`store_id` text NOT NULL,
	`path` text NOT NULL,
	`hash` text NOT NULL,
	`size` integer NOT NULL,
	PRIMARY KEY(`store_id`, `path`)
);
--> statement-breakpoint
CREATE TABLE `storefront_sites` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`slug` text NOT NULL,
	`template_id` text NOT NULL,
	`visibility` text NOT NULL,
	`status` text NOT NULL,
	`suspension_reason` text,
	`published_version_id` text,
	`served_version_id` text,
	`provisioning_status` text NOT NULL,
	`provisioning_failures` integer NOT NULL,
	`next_attempt_at` integer,
	`revision` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `storefront_sites_store` ON `storefront_sites` (`store_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `storefront_sites_slug` ON `storefront_sites` (`slug`);--> statement-breakpoint
CREATE INDEX `storefront_sites_due` ON `storefront_sites` (`next_attempt_at`);--> statement-breakpoint
CREATE TABLE `storefront_versions` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`site_id` text NOT NULL,
	`number` integer NOT NULL,
	`template_version` text,
	`server` text NOT NULL,
	`assets` text NOT NULL,
	`client_entries` text NOT NULL,
	`static_bytes` integer NOT NULL,
	`build_id` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `storefront_versions_number` ON `storefront_versions` (`site_id`,`number`);--> statement-breakpoint
CREATE INDEX `storefront_versions_store` ON `storefront_versions` (`store_id`);