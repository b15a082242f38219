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
-- The `settings` version of a store grows with every write to the tables its cached read models come
-- from (the store document, payment routing), so no write path can leave a stale cache entry.
CREATE TRIGGER `stores_settings_version_update` AFTER UPDATE ON `stores` BEGIN
  INSERT INTO `store_versions` (`store_id`, `scope`, `version`) VALUES (NEW.`id`, 'settings', 1)
    ON CONFLICT (`store_id`, `scope`) DO UPDATE SET `version` = `version` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `payment_settings_settings_version_insert` AFTER INSERT ON `payment_settings` BEGIN
  INSERT INTO `store_versions` (`store_id`, `scope`, `version`) VALUES (NEW.`store_id`, 'settings', 1)
    ON CONFLICT (`store_id`, `scope`) DO UPDATE SET `version` = `version` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `payment_settings_settings_version_update` AFTER UPDATE ON `payment_settings` BEGIN
  INSERT INTO `store_versions` (`store_id`, `scope`, `version`) VALUES (NEW.`store_id`, 'settings', 1)
    ON CONFLICT (`store_id`, `scope`) DO UPDATE SET `version` = `version` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `payment_settings_settings_version_delete` AFTER DELETE ON `payment_settings` BEGIN
  INSERT INTO `store_versions` (`store_id`, `scope`, `version`) VALUES (OLD.`store_id`, 'settings', 1)
    ON CONFLICT (`store_id`, `scope`) DO UPDATE SET `version` = `version` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `payment_providers_settings_version_insert` AFTER INSERT ON `payment_providers` BEGIN
  INSERT INTO `store_versions` (`store_id`, `scope`, `version`) VALUES (NEW.`store_id`, 'settings', 1)
    ON CONFLICT (`store_id`, `scope`) DO UPDATE SET `version` = `version` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `payment_providers_settings_version_update` AFTER UPDATE ON `payment_providers` BEGIN
  INSERT INTO `store_versions` (`store_id`, `scope`, `version`) VALUES (NEW.`store_id`, 'settings', 1)
    ON CONFLICT (`store_id`, `scope`) DO UPDATE SET `version` = `version` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `payment_providers_settings_version_delete` AFTER DELETE ON `payment_providers` BEGIN
  INSERT INTO `store_versions` (`store_id`, `scope`, `version`) VALUES (OLD.`store_id`, 'settings', 1)
    ON CONFLICT (`store_id`, `scope`) DO UPDATE SET `version` = `version` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `payment_credentials_settings_version_insert` AFTER INSERT ON `payment_credentials` BEGIN
  INSERT INTO `store_versions` (`store_id`, `scope`, `version`) VALUES (NEW.`store_id`, 'settings', 1)
    ON CONFLICT (`store_id`, `scope`) DO UPDATE SET `version` = `version` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `payment_credentials_settings_version_update` AFTER UPDATE ON `payment_credentials` BEGIN
  INSERT INTO `store_versions` (`store_id`, `scope`, `version`) VALUES (NEW.`store_id`, 'settings', 1)
    ON CONFLICT (`store_id`, `scope`) DO UPDATE SET `version` = `version` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `payment_credentials_settings_version_delete` AFTER DELETE ON `payment_credentials` BEGIN
  INSERT INTO `store_versions` (`store_id`, `scope`, `version`) VALUES (OLD.`store_id`, 'settings', 1)
    ON CONFLICT (`store_id`, `scope`) DO UPDATE SET `version` = `version` + 1;
END;
