-- More read models cached per store version (drizzle/0001_triggers.sql, src/modules/stores/store-cache.ts):
-- the point policy joins the `settings` scope, and coupons with their issued items make the `coupons` scope,
-- which the checkout price preview reads on every request; updated checkout sheets make the `sheets` scope,
-- customers the `customers` scope (every buyer request checks its token's customer), point lots `points`.
CREATE TRIGGER `point_policies_settings_version_insert` AFTER INSERT ON `point_policies` BEGIN
  INSERT INTO `store_versions` (`store_id`, `scope`, `version`) VALUES (NEW.`store_id`, 'settings', 1)
    ON CONFLICT (`store_id`, `scope`) DO UPDATE SET `version` = `version` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `point_policies_settings_version_update` AFTER UPDATE ON `point_policies` BEGIN
  INSERT INTO `store_versions` (`store_id`, `scope`, `version`) VALUES (NEW.`store_id`, 'settings', 1)
    ON CONFLICT (`store_id`, `scope`) DO UPDATE SET `version` = `version` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `point_policies_settings_version_delete` AFTER DELETE ON `point_policies` BEGIN
  INSERT INTO `store_versions` (`store_id`, `scope`, `version`) VALUES (OLD.`store_id`, 'settings', 1)
    ON CONFLICT (`store_id`, `scope`) DO UPDATE SET `version` = `version` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `coupons_version_insert` AFTER INSERT ON `coupons` BEGIN
  INSERT INTO `store_versions` (`store_id`, `scope`, `version`) VALUES (NEW.`store_id`, 'coupons', 1)
    ON CONFLICT (`store_id`, `scope`) DO UPDATE SET `version` = `version` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `coupons_version_update` AFTER UPDATE ON `coupons` BEGIN
  INSERT INTO `store_versions` (`store_id`, `scope`, `version`) VALUES (NEW.`store_id`, 'coupons', 1)
    ON CONFLICT (`store_id`, `scope`) DO UPDATE SET `version` = `version` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `coupons_version_delete` AFTER DELETE ON `coupons` BEGIN
  INSERT INTO `store_versions` (`store_id`, `scope`, `version`) VALUES (OLD.`store_id`, 'coupons', 1)
    ON CONFLICT (`store_id`, `scope`) DO UPDATE SET `version` = `version` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `coupon_items_version_insert` AFTER INSERT ON `coupon_items` BEGIN
  INSERT INTO `store_versions` (`store_id`, `scope`, `version`) VALUES (NEW.`store_id`, 'coupons', 1)
    ON CONFLICT (`store_id`, `scope`) DO UPDATE SET `version` = `version` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `coupon_items_version_update` AFTER UPDATE ON `coupon_items` BEGIN
  INSERT INTO `store_versions` (`store_id`, `scope`, `version`) VALUES (NEW.`store_id`, 'coupons', 1)
    ON CONFLICT (`store_id`, `scope`) DO UPDATE SET `version` = `version` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `coupon_items_version_delete` AFTER DELETE ON `coupon_items` BEGIN
  INSERT INTO `store_versions` (`store_id`, `scope`, `version`) VALUES (OLD.`store_id`, 'coupons', 1)
    ON CONFLICT (`store_id`, `scope`) DO UPDATE SET `version` = `version` + 1;
END;
--> statement-breakpoint
-- Checkout sheets the buyer's previews read again and again: a new sheet changes no remembered one, so only
-- updates and deletes grow the store's `sheets` version.
CREATE TRIGGER `checkout_sheets_version_update` AFTER UPDATE ON `checkout_sheets` BEGIN
  INSERT INTO `store_versions` (`store_id`, `scope`, `version`) VALUES (NEW.`store_id`, 'sheets', 1)
    ON CONFLICT (`store_id`, `scope`) DO UPDATE SET `version` = `version` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `checkout_sheets_version_delete` AFTER DELETE ON `checkout_sheets` BEGIN
  INSERT INTO `store_versions` (`store_id`, `scope`, `version`) VALUES (OLD.`store_id`, 'sheets', 1)
    ON CONFLICT (`store_id`, `scope`) DO UPDATE SET `version` = `version` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `customers_version_insert` AFTER INSERT ON `customers` BEGIN
  INSERT INTO `store_versions` (`store_id`, `scope`, `version`) VALUES (NEW.`store_id`, 'customers', 1)
    ON CONFLICT (`store_id`, `scope`) DO UPDATE SET `version` = `version` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `customers_version_update` AFTER UPDATE ON `customers` BEGIN
  INSERT INTO `store_versions` (`store_id`, `scope`, `version`) VALUES (NEW.`store_id`, 'customers', 1)
    ON CONFLICT (`store_id`, `scope`) DO UPDATE SET `version` = `version` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `customers_version_delete` AFTER DELETE ON `customers` BEGIN
  INSERT INTO `store_versions` (`store_id`, `scope`, `version`) VALUES (OLD.`store_id`, 'customers', 1)
    ON CONFLICT (`store_id`, `scope`) DO UPDATE SET `version` = `version` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `point_lots_version_insert` AFTER INSERT ON `point_lots` BEGIN
  INSERT INTO `store_versions` (`store_id`, `scope`, `version`) VALUES (NEW.`store_id`, 'points', 1)
    ON CONFLICT (`store_id`, `scope`) DO UPDATE SET `version` = `version` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `point_lots_version_update` AFTER UPDATE ON `point_lots` BEGIN
  INSERT INTO `store_versions` (`store_id`, `scope`, `version`) VALUES (NEW.`store_id`, 'points', 1)
    ON CONFLICT (`store_id`, `scope`) DO UPDATE SET `version` = `version` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `point_lots_version_delete` AFTER DELETE ON `point_lots` BEGIN
  INSERT INTO `store_versions` (`store_id`, `scope`, `version`) VALUES (OLD.`store_id`, 'points', 1)
    ON CONFLICT (`store_id`, `scope`) DO UPDATE SET `version` = `version` + 1;
END;
