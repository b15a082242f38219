CREATE TABLE `app_api_calls` (
	`installation_id` text NOT NULL,
	`day` text NOT NULL,
	`count` integer NOT NULL,
	PRIMARY KEY(`installation_id`, `day`)
);
--> statement-breakpoint
CREATE TABLE `app_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`installation_id` text NOT NULL,
	`event` text NOT NULL,
	`payload` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `app_deliveries_due` ON `app_deliveries` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE TABLE `app_executions` (
	`id` text PRIMARY KEY NOT NULL,
	`app_id` text NOT NULL,
	`installation_id` text NOT NULL,
	`store_id` text NOT NULL,
	`kind` text NOT NULL,
	`name` text NOT NULL,
	`status` text NOT NULL,
	`error_code` text,
	`error_message` text,
	`logs` text NOT NULL,
	`duration_ms` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `app_executions_installation` ON `app_executions` (`installation_id`,`id`);--> statement-breakpoint
CREATE INDEX `app_executions_app` ON `app_executions` (`app_id`,`id`);--> statement-breakpoint
CREATE INDEX `app_executions_created` ON `app_executions` (`created_at`);--> statement-breakpoint
CREATE TABLE `app_installations` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`app_id` text NOT NULL,
	`version_id` text NOT NULL,
	`pending_version_id` text,
	`granted_scopes` text NOT NULL,
	`installed_by` text NOT NULL,
	`settings` text NOT NULL,
	`status` text NOT NULL,
	`installed_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`uninstalled_at` integer,
	`erase_at` integer,
	`erased_at` integer,
	FOREIGN KEY (`app_id`) REFERENCES `apps`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `app_installations_store_app_active` ON `app_installations` (`store_id`,`app_id`) WHERE status = 'ACTIVE';--> statement-breakpoint
CREATE INDEX `app_installations_app` ON `app_installations` (`app_id`);--> statement-breakpoint
CREATE INDEX `app_installations_erase` ON `app_installations` (`erase_at`);--> statement-breakpoint
CREATE TABLE `app_schedules` (
	`installation_id` text NOT NULL,
	`name` text NOT NULL,
	`interval_seconds` integer NOT NULL,
	`next_run_at` integer NOT NULL,
	PRIMARY KEY(`installation_id`, `name`)
);
--> statement-breakpoint
CREATE INDEX `app_schedules_due` ON `app_schedules` (`next_run_at`);--> statement-breakpoint
CREATE TABLE `app_storage` (
	`installation_id` text NOT NULL,
	`key` text NOT NULL,
	`value` text NOT NULL,
	`bytes` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`installation_id`, `key`)
);
--> statement-breakpoint
CREATE TABLE `app_versions` (
	`id` text PRIMARY KEY NOT NULL,
	`app_id` text NOT NULL,
	`version` integer NOT NULL,
	`manifest` text NOT NULL,
	`bundle` text NOT NULL,
	`created_by` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`app_id`) REFERENCES `apps`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `app_versions_app_version` ON `app_versions` (`app_id`,`version`);--> statement-breakpoint
CREATE TABLE `apps` (
	`id` text PRIMARY KEY NOT NULL,
	`handle` text NOT NULL,
	`name` text NOT NULL,
	`owner_user_id` text NOT NULL,
	`visibility` text NOT NULL,
	`latest_version` integer NOT NULL,
	`failing_since` integer,
	`suspended_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `apps_handle` ON `apps` (`handle`);--> statement-breakpoint
CREATE TABLE `catalog_sequences` (
	`store_id` text PRIMARY KEY NOT NULL,
	`product_no` integer NOT NULL,
	`variant_no` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `categories` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`name` text NOT NULL,
	`parent_id` text,
	`flow_id` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `categories_store_parent` ON `categories` (`store_id`,`parent_id`);--> statement-breakpoint
CREATE TABLE `product_calendar` (
	`variant_id` text NOT NULL,
	`date` text NOT NULL,
	`store_id` text NOT NULL,
	`product_id` text NOT NULL,
	`stock` integer NOT NULL,
	`price` integer,
	PRIMARY KEY(`variant_id`, `date`),
	FOREIGN KEY (`variant_id`) REFERENCES `product_variants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `product_calendar_product` ON `product_calendar` (`product_id`,`date`);--> statement-breakpoint
CREATE TABLE `product_variants` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`product_id` text NOT NULL,
	`variant_no` integer NOT NULL,
	`position` integer NOT NULL,
	`option_values` text NOT NULL,
	`additional_amount` integer NOT NULL,
	`stock_quantity` integer NOT NULL,
	`sale_on` integer NOT NULL,
	`sku` text,
	`sold_quantity` integer NOT NULL,
	`out_of_stock_notified` integer NOT NULL,
	FOREIGN KEY (`product_id`) REFERENCES `products`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `product_variants_product` ON `product_variants` (`product_id`,`position`);--> statement-breakpoint
CREATE TABLE `products` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`product_no` integer NOT NULL,
	`name` text NOT NULL,
	`sale_price` integer NOT NULL,
	`list_price` integer,
	`category_id` text,
	`images` text NOT NULL,
	`status` text NOT NULL,
	`auto_sold_out` integer NOT NULL,
	`options` text NOT NULL,
	`fulfillment` text NOT NULL,
	`refund_policy` text,
	`inventory_mode` text NOT NULL,
	`flow_id` text,
	`point_earn_rate_bp` integer,
	`is_sample` integer NOT NULL,
	`discount` text,
	`version` integer NOT NULL,
	`type_changed_version` integer NOT NULL,
	`sales_count` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `products_store_no` ON `products` (`store_id`,`product_no`);--> statement-breakpoint
CREATE INDEX `products_store_id` ON `products` (`store_id`,`id`);--> statement-breakpoint
CREATE INDEX `products_store_status_id` ON `products` (`store_id`,`status`,`id`);--> statement-breakpoint
CREATE INDEX `products_store_category` ON `products` (`store_id`,`category_id`);--> statement-breakpoint
CREATE TABLE `saved_option_sets` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`name` text NOT NULL,
	`option_sort` text NOT NULL,
	`groups` text NOT NULL,
	`custom_inputs` text NOT NULL,
	`imported_product_count` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `saved_option_sets_store` ON `saved_option_sets` (`store_id`,`updated_at`);--> statement-breakpoint
CREATE TABLE `uploads` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`purpose` text NOT NULL,
	`filename` text NOT NULL,
	`content_type` text NOT NULL,
	`size` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `uploads_store` ON `uploads` (`store_id`,`id`);