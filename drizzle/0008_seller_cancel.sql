ALTER TABLE `payment_refunds` ADD `claim_id` text;--> statement-breakpoint
ALTER TABLE `payment_refunds` ADD `order_item_ids` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `payment_refunds` ADD `held_reason` text;--> statement-breakpoint
ALTER TABLE `order_items` ADD `canceled_quantity` integer DEFAULT 0 NOT NULL;