CREATE TABLE `collections` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`slug` text NOT NULL,
	`title` text NOT NULL,
	`product_ids` text,
	`rule` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `collections_store_slug` ON `collections` (`store_id`,`slug`);--> statement-breakpoint
CREATE TABLE `buyer_login_settings` (
	`store_id` text PRIMARY KEY NOT NULL,
	`email_password` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `inquiries` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`kind` text NOT NULL,
	`product_id` text,
	`customer_id` text NOT NULL,
	`title` text NOT NULL,
	`text` text NOT NULL,
	`secret` integer NOT NULL,
	`answer` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `inquiries_store` ON `inquiries` (`store_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `reviews` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`product_id` text NOT NULL,
	`order_item_id` text NOT NULL,
	`customer_id` text NOT NULL,
	`rating` integer NOT NULL,
	`text` text NOT NULL,
	`images` text NOT NULL,
	`reply` text,
	`hidden` integer NOT NULL,
	`test_order` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `reviews_order_item` ON `reviews` (`order_item_id`);--> statement-breakpoint
CREATE INDEX `reviews_store` ON `reviews` (`store_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `reviews_product` ON `reviews` (`product_id`,`created_at`);--> statement-breakpoint
ALTER TABLE `customers` ADD `phone` text;--> statement-breakpoint
ALTER TABLE `customers` ADD `password_hash` text;