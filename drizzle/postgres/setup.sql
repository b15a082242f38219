-- The PostgreSQL-only SQL, re-applied at every start (each function and trigger is replaced, never duplicated):
-- SQLite's three JSON functions the queries use on JSON kept in text columns, and PostgreSQL's version of
-- drizzle/0001_triggers.sql, 0029 and 0031 (the catalog counters and the store versions) and of the point ledger's
-- append-only triggers (drizzle/0011).

-- A row per array element; `value` as SQLite gives it: a string's text, other values as JSON text.
CREATE OR REPLACE FUNCTION json_each(doc text) RETURNS TABLE (value text) LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN jsonb_typeof(e) = 'string' THEN e #>> '{}' ELSE e::text END FROM jsonb_array_elements(doc::jsonb) e
$$;

-- Paths of the form '$.a.b' (all the code uses).
CREATE OR REPLACE FUNCTION json_extract(doc text, path text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT doc::jsonb #>> string_to_array(substr(path, 3), '.')
$$;

CREATE OR REPLACE FUNCTION json_array_length(doc text) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
  SELECT jsonb_array_length(doc::jsonb)::bigint
$$;

CREATE OR REPLACE FUNCTION svc_products_counters() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    UPDATE catalog_sequences SET product_count = product_count + 1, version = version + 1 WHERE store_id = NEW.store_id;
  ELSIF TG_OP = 'DELETE' THEN
    UPDATE catalog_sequences SET product_count = product_count - 1, version = version + 1 WHERE store_id = OLD.store_id;
  ELSE
    UPDATE catalog_sequences SET version = version + 1 WHERE store_id = NEW.store_id;
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION svc_catalog_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE catalog_sequences SET version = version + 1 WHERE store_id = CASE WHEN TG_OP = 'DELETE' THEN OLD.store_id ELSE NEW.store_id END;
  RETURN NULL;
END $$;

-- TG_ARGV[0] names the column holding the store id (`id` on stores, `store_id` elsewhere).
CREATE OR REPLACE FUNCTION svc_settings_version() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  store text := CASE WHEN TG_OP = 'DELETE' THEN to_jsonb(OLD) ->> TG_ARGV[0] ELSE to_jsonb(NEW) ->> TG_ARGV[0] END;
BEGIN
  INSERT INTO store_versions (store_id, scope, version) VALUES (store, 'settings', 1)
    ON CONFLICT (store_id, scope) DO UPDATE SET version = store_versions.version + 1;
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER products_counters AFTER INSERT OR UPDATE OR DELETE ON products
  FOR EACH ROW EXECUTE FUNCTION svc_products_counters();
CREATE OR REPLACE TRIGGER product_variants_version AFTER INSERT OR UPDATE OR DELETE ON product_variants
  FOR EACH ROW EXECUTE FUNCTION svc_catalog_version();
CREATE OR REPLACE TRIGGER stores_settings_version AFTER UPDATE ON stores
  FOR EACH ROW EXECUTE FUNCTION svc_settings_version('id');
CREATE OR REPLACE TRIGGER payment_settings_settings_version AFTER INSERT OR UPDATE OR DELETE ON payment_settings
  FOR EACH ROW EXECUTE FUNCTION svc_settings_version('store_id');
CREATE OR REPLACE TRIGGER payment_providers_settings_version AFTER INSERT OR UPDATE OR DELETE ON payment_providers
  FOR EACH ROW EXECUTE FUNCTION svc_settings_version('store_id');
CREATE OR REPLACE TRIGGER payment_credentials_settings_version AFTER INSERT OR UPDATE OR DELETE ON payment_credentials
  FOR EACH ROW EXECUTE FUNCTION svc_settings_version('store_id');

-- drizzle/0029_read_model_versions.sql: the point policy in the `settings` scope, coupons and their items in
-- `coupons`, updated and deleted checkout sheets in `sheets`, customers in `customers`, point lots in `points`.
-- TG_ARGV[0] names the scope.
CREATE OR REPLACE FUNCTION svc_store_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO store_versions (store_id, scope, version) VALUES (CASE WHEN TG_OP = 'DELETE' THEN OLD.store_id ELSE NEW.store_id END, TG_ARGV[0], 1)
    ON CONFLICT (store_id, scope) DO UPDATE SET version = store_versions.version + 1;
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER point_policies_settings_version AFTER INSERT OR UPDATE OR DELETE ON point_policies
  FOR EACH ROW EXECUTE FUNCTION svc_settings_version('store_id');
CREATE OR REPLACE TRIGGER coupons_version AFTER INSERT OR UPDATE OR DELETE ON coupons
  FOR EACH ROW EXECUTE FUNCTION svc_store_version('coupons');
CREATE OR REPLACE TRIGGER coupon_items_version AFTER INSERT OR UPDATE OR DELETE ON coupon_items
  FOR EACH ROW EXECUTE FUNCTION svc_store_version('coupons');
CREATE OR REPLACE TRIGGER checkout_sheets_version AFTER UPDATE OR DELETE ON checkout_sheets
  FOR EACH ROW EXECUTE FUNCTION svc_store_version('sheets');
CREATE OR REPLACE TRIGGER customers_version AFTER INSERT OR UPDATE OR DELETE ON customers
  FOR EACH ROW EXECUTE FUNCTION svc_store_version('customers');
CREATE OR REPLACE TRIGGER point_lots_version AFTER INSERT OR UPDATE OR DELETE ON point_lots
  FOR EACH ROW EXECUTE FUNCTION svc_store_version('points');
-- drizzle/0031: collections and categories in `collections`.
CREATE OR REPLACE TRIGGER collections_version AFTER INSERT OR UPDATE OR DELETE ON collections
  FOR EACH ROW EXECUTE FUNCTION svc_store_version('collections');
CREATE OR REPLACE TRIGGER categories_version AFTER INSERT OR UPDATE OR DELETE ON categories
  FOR EACH ROW EXECUTE FUNCTION svc_store_version('collections');

-- drizzle/0011_point_ledger_append_only.sql: the point ledger refuses to change or lose an entry.
CREATE OR REPLACE FUNCTION svc_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% is append-only', TG_TABLE_NAME;
END $$;

CREATE OR REPLACE TRIGGER point_entries_append_only BEFORE UPDATE OR DELETE ON point_entries
  FOR EACH ROW EXECUTE FUNCTION svc_append_only();

-- analytics_month_rows follows analytics_day_rows, as drizzle/0029's triggers do on SQLite.
CREATE OR REPLACE FUNCTION svc_analytics_month_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    UPDATE analytics_month_rows SET days = days - 1, sessions = sessions - OLD.sessions, engaged_sessions = engaged_sessions - OLD.engaged_sessions, visitors = visitors - OLD.visitors, page_views = page_views - OLD.page_views, dwell_seconds = dwell_seconds - OLD.dwell_seconds, product_views = product_views - OLD.product_views, list_views = list_views - OLD.list_views, cart_adds = cart_adds - OLD.cart_adds, checkout_starts = checkout_starts - OLD.checkout_starts, purchases = purchases - OLD.purchases, purchase_amount = purchase_amount - OLD.purchase_amount, test_purchases = test_purchases - OLD.test_purchases, test_purchase_amount = test_purchase_amount - OLD.test_purchase_amount, searches = searches - OLD.searches, zero_result_searches = zero_result_searches - OLD.zero_result_searches, excluded_bot_sessions = excluded_bot_sessions - OLD.excluded_bot_sessions
    WHERE store_id = OLD.store_id AND dimension = OLD.dimension AND month = substr(OLD.date, 1, 7) AND key = OLD.key;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO analytics_month_rows (store_id, month, dimension, key, days, sessions, engaged_sessions, visitors, page_views, dwell_seconds, product_views, list_views, cart_adds, checkout_starts, purchases, purchase_amount, test_purchases, test_purchase_amount, searches, zero_result_searches, excluded_bot_sessions)
    VALUES (NEW.store_id, substr(NEW.date, 1, 7), NEW.dimension, NEW.key, 1, NEW.sessions, NEW.engaged_sessions, NEW.visitors, NEW.page_views, NEW.dwell_seconds, NEW.product_views, NEW.list_views, NEW.cart_adds, NEW.checkout_starts, NEW.purchases, NEW.purchase_amount, NEW.test_purchases, NEW.test_purchase_amount, NEW.searches, NEW.zero_result_searches, NEW.excluded_bot_sessions)
    ON CONFLICT (store_id, dimension, month, key) DO UPDATE SET days = analytics_month_rows.days + 1, sessions = analytics_month_rows.sessions + excluded.sessions, engaged_sessions = analytics_month_rows.engaged_sessions + excluded.engaged_sessions, visitors = analytics_month_rows.visitors + excluded.visitors, page_views = analytics_month_rows.page_views + excluded.page_views, dwell_seconds = analytics_month_rows.dwell_seconds + excluded.dwell_seconds, product_views = analytics_month_rows.product_views + excluded.product_views, list_views = analytics_month_rows.list_views + excluded.list_views, cart_adds = analytics_month_rows.cart_adds + excluded.cart_adds, checkout_starts = analytics_month_rows.checkout_starts + excluded.checkout_starts, purchases = analytics_month_rows.purchases + excluded.purchases, purchase_amount = analytics_month_rows.purchase_amount + excluded.purchase_amount, test_purchases = analytics_month_rows.test_purchases + excluded.test_purchases, test_purchase_amount = analytics_month_rows.test_purchase_amount + excluded.test_purchase_amount, searches = analytics_month_rows.searches + excluded.searches, zero_result_searches = analytics_month_rows.zero_result_searches + excluded.zero_result_searches, excluded_bot_sessions = analytics_month_rows.excluded_bot_sessions + excluded.excluded_bot_sessions;
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER analytics_day_rows_month AFTER INSERT OR UPDATE OR DELETE ON analytics_day_rows
  FOR EACH ROW EXECUTE FUNCTION svc_analytics_month_rows();

-- A database whose day rows predate the month rows gets them summed once (later starts find them there).
INSERT INTO analytics_month_rows (store_id, month, dimension, key, days, sessions, engaged_sessions, visitors, page_views, dwell_seconds, product_views, list_views, cart_adds, checkout_starts, purchases, purchase_amount, test_purchases, test_purchase_amount, searches, zero_result_searches, excluded_bot_sessions)
  SELECT store_id, substr(date, 1, 7), dimension, key, count(*), sum(sessions), sum(engaged_sessions), sum(visitors), sum(page_views), sum(dwell_seconds), sum(product_views), sum(list_views), sum(cart_adds), sum(checkout_starts), sum(purchases), sum(purchase_amount), sum(test_purchases), sum(test_purchase_amount), sum(searches), sum(zero_result_searches), sum(excluded_bot_sessions)
  FROM analytics_day_rows WHERE NOT EXISTS (SELECT 1 FROM analytics_month_rows) GROUP BY store_id, dimension, substr(date, 1, 7), key;
