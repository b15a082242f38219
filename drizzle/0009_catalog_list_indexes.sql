DROP INDEX `products_store_id`;--> statement-breakpoint
DROP INDEX `products_store_status_id`;--> statement-breakpoint
DROP INDEX `products_store_category`;--> statement-breakpoint
CREATE INDEX `products_store_status_no` ON `products` (`store_id`,`status`,`product_no`);--> statement-breakpoint
CREATE INDEX `products_store_category_no` ON `products` (`store_id`,`category_id`,`product_no`);