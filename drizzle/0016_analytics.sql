CREATE TABLE `analytics_checkouts` (
	`checkout_id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`visitor_id` text NOT NULL,
	`client_session_id` text,
	`device` text NOT NULL,
	`bot` integer NOT NULL,
	`at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `analytics_checkouts_at` ON `analytics_checkouts` (`at`);--> statement-breakpoint
CREATE TABLE `analytics_day_rows` (
	`store_id` text NOT NULL,
	`date` text NOT NULL,
	`dimension` text NOT NULL,
	`key` text NOT NULL,
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
	PRIMARY KEY(`store_id`, `dimension`, `date`, `key`)
);
--> statement-breakpoint
CREATE TABLE `analytics_events` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`visitor_id` text NOT NULL,
	`client_session_id` text,
	`name` text NOT NULL,
	`at` integer NOT NULL,
	`path` text,
	`referrer_host` text,
	`utm_source` text,
	`utm_medium` text,
	`utm_campaign` text,
	`device` text NOT NULL,
	`bot` integer NOT NULL,
	`test` integer NOT NULL,
	`product_id` text,
	`query` text,
	`result_count` integer,
	`amount` integer,
	`data` text
);
--> statement-breakpoint
CREATE INDEX `analytics_events_store_at` ON `analytics_events` (`store_id`,`at`);--> statement-breakpoint
CREATE INDEX `analytics_events_at` ON `analytics_events` (`at`);--> statement-breakpoint
CREATE TABLE `analytics_runs` (
	`id` text PRIMARY KEY NOT NULL,
	`computed_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `analytics_visitor_windows` (
	`store_id` text NOT NULL,
	`visitor_id` text NOT NULL,
	`window_start` integer NOT NULL,
	`count` integer NOT NULL,
	PRIMARY KEY(`store_id`, `visitor_id`)
);
--> statement-breakpoint
CREATE INDEX `analytics_visitor_windows_start` ON `analytics_visitor_windows` (`window_start`);