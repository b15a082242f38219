ALTER TABLE `cart_items` ADD `addon_selections` text;--> statement-breakpoint
ALTER TABLE `cart_items` ADD `custom_inputs` text;--> statement-breakpoint
ALTER TABLE `order_items` ADD `option_selections` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `order_items` ADD `custom_inputs` text DEFAULT '[]' NOT NULL;