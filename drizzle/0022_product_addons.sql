ALTER TABLE `products` ADD `addons` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `products` ADD `custom_inputs` text DEFAULT '[]' NOT NULL;