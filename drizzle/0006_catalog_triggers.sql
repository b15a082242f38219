-- Catalog counters kept by the database itself, so no write path (catalog, checkout, imports) can forget
-- them: the product count per store, and a version that grows with every product or variant change (the
-- key of the product-list page cache). The sequence row exists before any product: productNo comes from it.
CREATE TRIGGER `products_counters_insert` AFTER INSERT ON `products` BEGIN
  UPDATE `catalog_sequences` SET `product_count` = `product_count` + 1, `version` = `version` + 1 WHERE `store_id` = NEW.`store_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `products_counters_delete` AFTER DELETE ON `products` BEGIN
  UPDATE `catalog_sequences` SET `product_count` = `product_count` - 1, `version` = `version` + 1 WHERE `store_id` = OLD.`store_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `products_counters_update` AFTER UPDATE ON `products` BEGIN
  UPDATE `catalog_sequences` SET `version` = `version` + 1 WHERE `store_id` = NEW.`store_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `product_variants_version_insert` AFTER INSERT ON `product_variants` BEGIN
  UPDATE `catalog_sequences` SET `version` = `version` + 1 WHERE `store_id` = NEW.`store_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `product_variants_version_update` AFTER UPDATE ON `product_variants` BEGIN
  UPDATE `catalog_sequences` SET `version` = `version` + 1 WHERE `store_id` = NEW.`store_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `product_variants_version_delete` AFTER DELETE ON `product_variants` BEGIN
  UPDATE `catalog_sequences` SET `version` = `version` + 1 WHERE `store_id` = OLD.`store_id`;
END;
--> statement-breakpoint
UPDATE `catalog_sequences` SET `product_count` = (SELECT count(*) FROM `products` WHERE `products`.`store_id` = `catalog_sequences`.`store_id`);
