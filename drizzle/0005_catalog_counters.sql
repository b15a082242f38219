CREATE TABLE `cart_items` (
	`id` text PRIMARY KEY NOT NULL,
	`cart_id` text NOT NULL,
	`store_id` text NOT NULL,
	`product_id` text NOT NULL,
	`option_id` text NOT NULL,
	`quantity` integer NOT NULL,
	`stay` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`cart_id`) REFERENCES `carts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `cart_items_cart` ON `cart_items` (`cart_id`);--> statement-breakpoint
CREATE TABLE `carts` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`customer_id` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `carts_store_customer` ON `carts` (`store_id`,`customer_id`);--> statement-breakpoint
CREATE TABLE `checkout_sheets` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`customer_id` text,
	`cart_id` text,
	`items` text NOT NULL,
	`requires_shipping` integer NOT NULL,
	`zip_code` text,
	`test_payment` integer NOT NULL,
	`status` text NOT NULL,
	`order_id` text,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `payment_attempts` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`payment_id` text NOT NULL,
	`seq` integer NOT NULL,
	`pg` text NOT NULL,
	`method` text NOT NULL,
	`provider` text,
	`pg_order_id` text NOT NULL,
	`pg_payment_key` text,
	`credential_id` text,
	`pg_transaction_id` text,
	`approved_method` text,
	`approved_amount` integer,
	`status` text NOT NULL,
	`return_url` text NOT NULL,
	`failure` text,
	`test_payment` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`approved_at` integer,
	FOREIGN KEY (`payment_id`) REFERENCES `payments`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `payment_attempts_payment_seq` ON `payment_attempts` (`payment_id`,`seq`);--> statement-breakpoint
CREATE INDEX `payment_attempts_key` ON `payment_attempts` (`pg_payment_key`);--> statement-breakpoint
CREATE TABLE `payment_refunds` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`payment_id` text NOT NULL,
	`attempt_id` text NOT NULL,
	`amount` integer NOT NULL,
	`point_refund_amount` integer NOT NULL,
	`reason` text NOT NULL,
	`status` text NOT NULL,
	`failure` text,
	`created_at` integer NOT NULL,
	`completed_at` integer,
	FOREIGN KEY (`payment_id`) REFERENCES `payments`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `payment_refunds_payment` ON `payment_refunds` (`payment_id`);--> statement-breakpoint
CREATE INDEX `payment_refunds_status` ON `payment_refunds` (`status`);--> statement-breakpoint
CREATE TABLE `payments` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`checkout_id` text NOT NULL,
	`customer_id` text,
	`order_no` integer NOT NULL,
	`status` text NOT NULL,
	`amounts` text NOT NULL,
	`shipping_address` text,
	`guest` text,
	`guest_password_hash` text,
	`test_payment` integer NOT NULL,
	`order_id` text,
	`last_failure` text,
	`buyer_name` text,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `payments_store_created` ON `payments` (`store_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `payments_checkout` ON `payments` (`checkout_id`);--> statement-breakpoint
CREATE TABLE `cash_receipts` (
	`payment_id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`type` text NOT NULL,
	`identity_sealed` text NOT NULL,
	`identity_masked` text NOT NULL,
	`status` text NOT NULL,
	`receipt_no` text,
	`attempts` integer NOT NULL,
	`next_attempt_at` integer,
	`failure_code` text,
	`issued_at` integer,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `cash_receipts_due` ON `cash_receipts` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE TABLE `guest_lookup_failures` (
	`store_id` text NOT NULL,
	`order_no` integer NOT NULL,
	`failures` integer NOT NULL,
	`locked_until` integer,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`store_id`, `order_no`)
);
--> statement-breakpoint
CREATE TABLE `order_items` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`order_id` text NOT NULL,
	`order_item_no` integer NOT NULL,
	`product_id` text NOT NULL,
	`product_no` integer NOT NULL,
	`option_id` text NOT NULL,
	`product_name` text NOT NULL,
	`option_values` text NOT NULL,
	`quantity` integer NOT NULL,
	`unit_price` integer NOT NULL,
	`amount` integer NOT NULL,
	`delivery_group` text,
	`delivery_fee` integer NOT NULL,
	`point_allocation` integer NOT NULL,
	`stay` text,
	`fulfillment_snapshot` text NOT NULL,
	`refund_policy` text NOT NULL,
	`status` text NOT NULL,
	`test_payment` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`order_id`) REFERENCES `orders`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `order_items_order` ON `order_items` (`order_id`);--> statement-breakpoint
CREATE INDEX `order_items_store` ON `order_items` (`store_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `order_sequences` (
	`store_id` text NOT NULL,
	`date` text NOT NULL,
	`last` integer NOT NULL,
	PRIMARY KEY(`store_id`, `date`)
);
--> statement-breakpoint
CREATE TABLE `orders` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`order_no` integer NOT NULL,
	`payment_id` text NOT NULL,
	`checkout_id` text NOT NULL,
	`customer_id` text,
	`buyer` text NOT NULL,
	`guest` integer NOT NULL,
	`guest_password_hash` text,
	`status` text NOT NULL,
	`test_payment` integer NOT NULL,
	`payment` text NOT NULL,
	`amounts` text NOT NULL,
	`shipping_address` text,
	`search_text` text NOT NULL,
	`ordered_at` integer NOT NULL,
	`last_changed_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `orders_store_no` ON `orders` (`store_id`,`order_no`);--> statement-breakpoint
CREATE UNIQUE INDEX `orders_payment` ON `orders` (`payment_id`);--> statement-breakpoint
CREATE INDEX `orders_store_ordered` ON `orders` (`store_id`,`ordered_at`);--> statement-breakpoint
CREATE INDEX `orders_store_changed` ON `orders` (`store_id`,`last_changed_at`);--> statement-breakpoint
CREATE TABLE `payment_credentials` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`provider` text NOT NULL,
	`environment` text NOT NULL,
	`status` text NOT NULL,
	`merchant` text NOT NULL,
	`public_config` text NOT NULL,
	`secrets` text NOT NULL,
	`masked` text NOT NULL,
	`verification` text,
	`verification_code` text,
	`verified_at` integer,
	`version` integer NOT NULL,
	`archived_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `payment_credentials_store` ON `payment_credentials` (`store_id`,`provider`,`environment`,`status`);--> statement-breakpoint
CREATE TABLE `payment_provider_failures` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`provider` text NOT NULL,
	`method` text NOT NULL,
	`easy_pay_provider` text,
	`code` text NOT NULL,
	`at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `payment_provider_failures_store` ON `payment_provider_failures` (`store_id`,`at`);--> statement-breakpoint
CREATE TABLE `payment_providers` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`provider` text NOT NULL,
	`enabled` integer NOT NULL,
	`sandbox_mode` integer NOT NULL,
	`easy_pay_providers` text NOT NULL,
	`sandbox_payment_at` integer,
	`sandbox_refund_at` integer,
	`live_switched_at` integer,
	`version` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `payment_providers_store_provider` ON `payment_providers` (`store_id`,`provider`);--> statement-breakpoint
CREATE TABLE `payment_settings` (
	`store_id` text PRIMARY KEY NOT NULL,
	`priority` text NOT NULL,
	`checkout_origins` text NOT NULL,
	`platform_live_enabled` integer NOT NULL,
	`warning_mailed_at` integer,
	`version` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `sandbox_gateway_payments` (
	`pg_payment_key` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`provider` text NOT NULL,
	`credential_id` text NOT NULL,
	`payment_id` text NOT NULL,
	`pg_order_id` text NOT NULL,
	`order_name` text NOT NULL,
	`method` text NOT NULL,
	`easy_pay_provider` text,
	`amount` integer NOT NULL,
	`gateway_amount` integer NOT NULL,
	`canceled_amount` integer NOT NULL,
	`status` text NOT NULL,
	`slow_confirm` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `sandbox_gateway_payments_payment` ON `sandbox_gateway_payments` (`payment_id`);--> statement-breakpoint
ALTER TABLE `catalog_sequences` ADD `product_count` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `catalog_sequences` ADD `version` integer DEFAULT 0 NOT NULL;