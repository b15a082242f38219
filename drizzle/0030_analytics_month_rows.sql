CREATE TABLE `analytics_month_rows` (
	`store_id` text NOT NULL,
	`month` text NOT NULL,
	`dimension` text NOT NULL,
	`key` text NOT NULL,
	`days` integer NOT NULL,
	`sessions` integer NOT NULL,
	`engaged_sessions` integer NOT NULL,
	`visitors` integer NOT NULL,
	`page_views` integer NOT NULL,
	`dwell_seconds` integer NOT NULL,
	`product_views` integer NOT NULL,
	`list_views` integer NOT NULL,
	`cart_adds` integer NOT NULL,
	`checkout_starts` integer NOT NULL,
	`purchases` integer NOT NULL,
	`purchase_amount` integer NOT NULL,
	`test_purchases` integer NOT NULL,
	`test_purchase_amount` integer NOT NULL,
	`searches` integer NOT NULL,
	`zero_result_searches` integer NOT NULL,
	`excluded_bot_sessions` integer NOT NULL,
	PRIMARY KEY(`store_id`, `dimension`, `month`, `key`)
);
--> statement-breakpoint
-- The month rows follow the day rows, whoever writes them (the recompute, a restore): each day row is added
-- into its month's row and taken out again when deleted; an update is both.
CREATE TRIGGER `analytics_day_rows_month_insert` AFTER INSERT ON `analytics_day_rows` BEGIN
  INSERT INTO analytics_month_rows (store_id, month, dimension, key, days, sessions, engaged_sessions, visitors, page_views, dwell_seconds, product_views, list_views, cart_adds, checkout_starts, purchases, purchase_amount, test_purchases, test_purchase_amount, searches, zero_result_searches, excluded_bot_sessions)
    VALUES (NEW.store_id, substr(NEW.date, 1, 7), NEW.dimension, NEW.key, 1, NEW.sessions, NEW.engaged_sessions, NEW.visitors, NEW.page_views, NEW.dwell_seconds, NEW.product_views, NEW.list_views, NEW.cart_adds, NEW.checkout_starts, NEW.purchases, NEW.purchase_amount, NEW.test_purchases, NEW.test_purchase_amount, NEW.searches, NEW.zero_result_searches, NEW.excluded_bot_sessions)
    ON CONFLICT (store_id, dimension, month, key) DO UPDATE SET days = days + 1, sessions = sessions + excluded.sessions, engaged_sessions = engaged_sessions + excluded.engaged_sessions, visitors = visitors + excluded.visitors, page_views = page_views + excluded.page_views, dwell_seconds = dwell_seconds + excluded.dwell_seconds, product_views = product_views + excluded.product_views, list_views = list_views + excluded.list_views, cart_adds = cart_adds + excluded.cart_adds, checkout_starts = checkout_starts + excluded.checkout_starts, purchases = purchases + excluded.purchases, purchase_amount = purchase_amount + excluded.purchase_amount, test_purchases = test_purchases + excluded.test_purchases, test_purchase_amount = test_purchase_amount + excluded.test_purchase_amount, searches = searches + excluded.searches, zero_result_searches = zero_result_searches + excluded.zero_result_searches, excluded_bot_sessions = excluded_bot_sessions + excluded.excluded_bot_sessions;
END;--> statement-breakpoint
CREATE TRIGGER `analytics_day_rows_month_delete` AFTER DELETE ON `analytics_day_rows` BEGIN
  UPDATE analytics_month_rows SET days = days - 1, sessions = sessions - OLD.sessions, engaged_sessions = engaged_sessions - OLD.engaged_sessions, visitors = visitors - OLD.visitors, page_views = page_views - OLD.page_views, dwell_seconds = dwell_seconds - OLD.dwell_seconds, product_views = product_views - OLD.product_views, list_views = list_views - OLD.list_views, cart_adds = cart_adds - OLD.cart_adds, checkout_starts = checkout_starts - OLD.checkout_starts, purchases = purchases - OLD.purchases, purchase_amount = purchase_amount - OLD.purchase_amount, test_purchases = test_purchases - OLD.test_purchases, test_purchase_amount = test_purchase_amount - OLD.test_purchase_amount, searches = searches - OLD.searches, zero_result_searches = zero_result_searches - OLD.zero_result_searches, excluded_bot_sessions = excluded_bot_sessions - OLD.excluded_bot_sessions
    WHERE store_id = OLD.store_id AND dimension = OLD.dimension AND month = substr(OLD.date, 1, 7) AND key = OLD.key;
END;--> statement-breakpoint
CREATE TRIGGER `analytics_day_rows_month_update` AFTER UPDATE ON `analytics_day_rows` BEGIN
  UPDATE analytics_month_rows SET days = days - 1, sessions = sessions - OLD.sessions, engaged_sessions = engaged_sessions - OLD.engaged_sessions, visitors = visitors - OLD.visitors, page_views = page_views - OLD.page_views, dwell_seconds = dwell_seconds - OLD.dwell_seconds, product_views = product_views - OLD.product_views, list_views = list_views - OLD.list_views, cart_adds = cart_adds - OLD.cart_adds, checkout_starts = checkout_starts - OLD.checkout_starts, purchases = purchases - OLD.purchases, purchase_amount = purchase_amount - OLD.purchase_amount, test_purchases = test_purchases - OLD.test_purchases, test_purchase_amount = test_purchase_amount - OLD.test_purchase_amount, searches = searches - OLD.searches, zero_result_searches = zero_result_searches - OLD.zero_result_searches, excluded_bot_sessions = excluded_bot_sessions - OLD.excluded_bot_sessions
    WHERE store_id = OLD.store_id AND dimension = OLD.dimension AND month = substr(OLD.date, 1, 7) AND key = OLD.key;
  INSERT INTO analytics_month_rows (store_id, month, dimension, key, days, sessions, engaged_sessions, visitors, page_views, dwell_seconds, product_views, list_views, cart_adds, checkout_starts, purchases, purchase_amount, test_purchases, test_purchase_amount, searches, zero_result_searches, excluded_bot_sessions)
    VALUES (NEW.store_id, substr(NEW.date, 1, 7), NEW.dimension, NEW.key, 1, NEW.sessions, NEW.engaged_sessions, NEW.visitors, NEW.page_views, NEW.dwell_seconds, NEW.product_views, NEW.list_views, NEW.cart_adds, NEW.checkout_starts, NEW.purchases, NEW.purchase_amount, NEW.test_purchases, NEW.test_purchase_amount, NEW.searches, NEW.zero_result_searches, NEW.excluded_bot_sessions)
    ON CONFLICT (store_id, dimension, month, key) DO UPDATE SET days = days + 1, sessions = sessions + excluded.sessions, engaged_sessions = engaged_sessions + excluded.engaged_sessions, visitors = visitors + excluded.visitors, page_views = page_views + excluded.page_views, dwell_seconds = dwell_seconds + excluded.dwell_seconds, product_views = product_views + excluded.product_views, list_views = list_views + excluded.list_views, cart_adds = cart_adds + excluded.cart_adds, checkout_starts = checkout_starts + excluded.checkout_starts, purchases = purchases + excluded.purchases, purchase_amount = purchase_amount + excluded.purchase_amount, test_purchases = test_purchases + excluded.test_purchases, test_purchase_amount = test_purchase_amount + excluded.test_purchase_amount, searches = searches + excluded.searches, zero_result_searches = zero_result_searches + excluded.zero_result_searches, excluded_bot_sessions = excluded_bot_sessions + excluded.excluded_bot_sessions;
END;--> statement-breakpoint
INSERT INTO analytics_month_rows (store_id, month, dimension, key, days, sessions, engaged_sessions, visitors, page_views, dwell_seconds, product_views, list_views, cart_adds, checkout_starts, purchases, purchase_amount, test_purchases, test_purchase_amount, searches, zero_result_searches, excluded_bot_sessions)
  SELECT store_id, substr(date, 1, 7), dimension, key, count(*), sum(sessions), sum(engaged_sessions), sum(visitors), sum(page_views), sum(dwell_seconds), sum(product_views), sum(list_views), sum(cart_adds), sum(checkout_starts), sum(purchases), sum(purchase_amount), sum(test_purchases), sum(test_purchase_amount), sum(searches), sum(zero_result_searches), sum(excluded_bot_sessions)
  FROM analytics_day_rows GROUP BY store_id, dimension, substr(date, 1, 7), key;
