-- The `collections` scope of `store_versions` (src/modules/stores/store-cache.ts): collections and categories,
-- which the buyer API's collection listings read. With the catalog version (products, variants) and the
-- `settings` scope it stamps a cached storefront page (src/modules/storefront/serving/page-cache.ts).
CREATE TRIGGER `collections_version_insert` AFTER INSERT ON `collections` BEGIN
  INSERT INTO `store_versions` (`store_id`, `scope`, `version`) VALUES (NEW.`store_id`, 'collections', 1)
    ON CONFLICT (`store_id`, `scope`) DO UPDATE SET `version` = `version` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `collections_version_update` AFTER UPDATE ON `collections` BEGIN
  INSERT INTO `store_versions` (`store_id`, `scope`, `version`) VALUES (NEW.`store_id`, 'collections', 1)
    ON CONFLICT (`store_id`, `scope`) DO UPDATE SET `version` = `version` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `collections_version_delete` AFTER DELETE ON `collections` BEGIN
  INSERT INTO `store_versions` (`store_id`, `scope`, `version`) VALUES (OLD.`store_id`, 'collections', 1)
    ON CONFLICT (`store_id`, `scope`) DO UPDATE SET `version` = `version` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `categories_version_insert` AFTER INSERT ON `categories` BEGIN
  INSERT INTO `store_versions` (`store_id`, `scope`, `version`) VALUES (NEW.`store_id`, 'collections', 1)
    ON CONFLICT (`store_id`, `scope`) DO UPDATE SET `version` = `version` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `categories_version_update` AFTER UPDATE ON `categories` BEGIN
  INSERT INTO `store_versions` (`store_id`, `scope`, `version`) VALUES (NEW.`store_id`, 'collections', 1)
    ON CONFLICT (`store_id`, `scope`) DO UPDATE SET `version` = `version` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `categories_version_delete` AFTER DELETE ON `categories` BEGIN
  INSERT INTO `store_versions` (`store_id`, `scope`, `version`) VALUES (OLD.`store_id`, 'collections', 1)
    ON CONFLICT (`store_id`, `scope`) DO UPDATE SET `version` = `version` + 1;
END;
