CREATE TABLE `claims` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`claim_no` integer NOT NULL,
	`claim_type` text NOT NULL,
	`status` text NOT NULL,
	`order_id` text NOT NULL,
	`order_item_id` text NOT NULL,
	`quantity` integer NOT NULL,
	`reason` text NOT NULL,
	`detail` text,
	`exchange_option_id` text,
	`images` text NOT NULL,
	`refund_amount` integer,
	`delivery_fee_refund_amount` integer NOT NULL,
	`delivery_fee_charge_amount` integer NOT NULL,
	`deduct_amount` integer NOT NULL,
	`point_refund_amount` integer NOT NULL,
	`refund_id` text,
	`approved` integer NOT NULL,
	`reject_reason` text,
	`reship` text,
	`test_payment` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `claims_store_no` ON `claims` (`store_id`,`claim_no`);--> statement-breakpoint
CREATE INDEX `claims_store_created` ON `claims` (`store_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `claims_item` ON `claims` (`order_item_id`);--> statement-breakpoint
ALTER TABLE `payment_refunds` ADD `claim_id` text;--> statement-breakpoint
ALTER TABLE `payment_refunds` ADD `order_item_ids` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `payment_refunds` ADD `held_reason` text;--> statement-breakpoint
ALTER TABLE `order_items` ADD `canceled_quantity` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `order_items` ADD `returned_quantity` integer DEFAULT 0 NOT NULL;