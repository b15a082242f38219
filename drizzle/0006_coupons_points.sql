CREATE TABLE `coupon_items` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`coupon_id` text NOT NULL,
	`customer_id` text,
	`source` text NOT NULL,
	`code` text NOT NULL,
	`expires_at` integer,
	`used_at` integer,
	`payment_id` text,
	`order_id` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`coupon_id`) REFERENCES `coupons`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `coupon_items_store_code` ON `coupon_items` (`store_id`,`code`);--> statement-breakpoint
CREATE INDEX `coupon_items_customer` ON `coupon_items` (`store_id`,`customer_id`,`coupon_id`);--> statement-breakpoint
CREATE INDEX `coupon_items_payment` ON `coupon_items` (`payment_id`);--> statement-breakpoint
CREATE TABLE `coupons` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`name` text NOT NULL,
	`code` text,
	`issue_type` text NOT NULL,
	`benefit` text NOT NULL,
	`min_order_amount` integer NOT NULL,
	`target` text NOT NULL,
	`download_start` integer,
	`download_end` integer,
	`use_days` integer,
	`use_end` integer,
	`total_quantity` integer,
	`per_customer_limit` integer NOT NULL,
	`stackable` integer NOT NULL,
	`status` text NOT NULL,
	`issued_count` integer NOT NULL,
	`used_count` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `coupons_store` ON `coupons` (`store_id`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `coupons_store_code` ON `coupons` (`store_id`,`code`);--> statement-breakpoint
CREATE TABLE `point_entries` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`customer_id` text NOT NULL,
	`kind` text NOT NULL,
	`amount` integer NOT NULL,
	`balance_after` integer NOT NULL,
	`reason` text,
	`expires_at` integer,
	`payment_id` text,
	`order_id` text,
	`order_item_id` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `point_entries_customer` ON `point_entries` (`store_id`,`customer_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `point_entries_payment` ON `point_entries` (`payment_id`);--> statement-breakpoint
CREATE TABLE `point_lot_uses` (
	`entry_id` text NOT NULL,
	`lot_id` text NOT NULL,
	`amount` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `point_lot_uses_entry` ON `point_lot_uses` (`entry_id`);--> statement-breakpoint
CREATE TABLE `point_lots` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`customer_id` text NOT NULL,
	`amount` integer NOT NULL,
	`remaining` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `point_lots_customer` ON `point_lots` (`store_id`,`customer_id`,`expires_at`);--> statement-breakpoint
CREATE INDEX `point_lots_expiry` ON `point_lots` (`expires_at`);--> statement-breakpoint
CREATE TABLE `point_policies` (
	`store_id` text PRIMARY KEY NOT NULL,
	`earn_enabled` integer NOT NULL,
	`default_earn_rate_bp` integer NOT NULL,
	`validity_days` integer,
	`use_enabled` integer NOT NULL,
	`min_use_amount` integer NOT NULL,
	`max_use_rate_bp` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `payments` ADD `coupons` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `payments` ADD `holds_settled_at` integer;--> statement-breakpoint
ALTER TABLE `order_items` ADD `coupon_discount_amount` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `order_items` ADD `point_earn_rate_bp` integer;