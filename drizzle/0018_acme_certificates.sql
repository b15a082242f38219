CREATE TABLE `storefront_acme_accounts` (
	`directory_url` text PRIMARY KEY NOT NULL,
	`account_key` text NOT NULL,
	`account_url` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `storefront_acme_challenges` (
	`token` text PRIMARY KEY NOT NULL,
	`hostname` text NOT NULL,
	`key_authorization` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `storefront_domain_certificates` (
	`hostname` text PRIMARY KEY NOT NULL,
	`domain_id` text NOT NULL,
	`chain_pem` text NOT NULL,
	`key_pem` text NOT NULL,
	`issued_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `storefront_domain_certificates_domain` ON `storefront_domain_certificates` (`domain_id`);