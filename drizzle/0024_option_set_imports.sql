CREATE TABLE `option_set_imports` (
	`option_set_id` text NOT NULL,
	`product_id` text NOT NULL,
	`store_id` text NOT NULL,
	`imported_at` integer NOT NULL,
	PRIMARY KEY(`option_set_id`, `product_id`),
	FOREIGN KEY (`option_set_id`) REFERENCES `saved_option_sets`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`product_id`) REFERENCES `products`(`id`) ON UPDATE no action ON DELETE cascade
);
