CREATE TABLE `access_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`name` text NOT NULL,
	`scopes` text NOT NULL,
	`store_ids` text,
	`agent` integer NOT NULL,
	`buyer_delegation` integer NOT NULL,
	`value_prefix` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`revoked_at` integer,
	`last_used_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `access_tokens_user` ON `access_tokens` (`user_id`);--> statement-breakpoint
CREATE TABLE `authorization_codes` (
	`code_hash` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`client_id` text NOT NULL,
	`redirect_uri` text NOT NULL,
	`code_challenge` text NOT NULL,
	`scope` text NOT NULL,
	`auth_time` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `login_sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`client_id` text NOT NULL,
	`scope` text NOT NULL,
	`auth_time` integer NOT NULL,
	`created_at` integer NOT NULL,
	`max_expires_at` integer NOT NULL,
	`revoked_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `login_sessions_user` ON `login_sessions` (`user_id`);--> statement-breakpoint
CREATE TABLE `password_resets` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `refresh_tokens` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`session_id` text NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	FOREIGN KEY (`session_id`) REFERENCES `login_sessions`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`name` text NOT NULL,
	`password_hash` text NOT NULL,
	`tokens_valid_from` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_email` ON `users` (`email`);--> statement-breakpoint
CREATE TABLE `approval_requests` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`status` text NOT NULL,
	`operation_id` text NOT NULL,
	`operation_name` text NOT NULL,
	`reason` text NOT NULL,
	`method` text NOT NULL,
	`path` text NOT NULL,
	`params` text NOT NULL,
	`query` text NOT NULL,
	`body` text NOT NULL,
	`target_type` text,
	`target_id` text,
	`idempotency_key` text,
	`fingerprint` text NOT NULL,
	`requester_kind` text NOT NULL,
	`requester_token_id` text NOT NULL,
	`requester_user_id` text NOT NULL,
	`requester_name` text NOT NULL,
	`owner_only` integer NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`decided_at` integer,
	`decided_by` text,
	`notified_at` integer,
	`result` text
);
--> statement-breakpoint
CREATE INDEX `approval_requests_store_status` ON `approval_requests` (`store_id`,`status`);--> statement-breakpoint
CREATE UNIQUE INDEX `approval_requests_token_key` ON `approval_requests` (`requester_token_id`,`idempotency_key`);--> statement-breakpoint
CREATE TABLE `app_api_calls` (
	`installation_id` text NOT NULL,
	`day` text NOT NULL,
	`count` integer NOT NULL,
	PRIMARY KEY(`installation_id`, `day`)
);
--> statement-breakpoint
CREATE TABLE `app_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`installation_id` text NOT NULL,
	`event` text NOT NULL,
	`payload` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `app_deliveries_due` ON `app_deliveries` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE TABLE `app_executions` (
	`id` text PRIMARY KEY NOT NULL,
	`app_id` text NOT NULL,
	`installation_id` text NOT NULL,
	`store_id` text NOT NULL,
	`kind` text NOT NULL,
	`name` text NOT NULL,
	`status` text NOT NULL,
	`error_code` text,
	`error_message` text,
	`logs` text NOT NULL,
	`duration_ms` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `app_executions_installation` ON `app_executions` (`installation_id`,`id`);--> statement-breakpoint
CREATE INDEX `app_executions_app` ON `app_executions` (`app_id`,`id`);--> statement-breakpoint
CREATE INDEX `app_executions_created` ON `app_executions` (`created_at`);--> statement-breakpoint
CREATE TABLE `app_installations` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`app_id` text NOT NULL,
	`version_id` text NOT NULL,
	`pending_version_id` text,
	`granted_scopes` text NOT NULL,
	`installed_by` text NOT NULL,
	`settings` text NOT NULL,
	`status` text NOT NULL,
	`installed_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`uninstalled_at` integer,
	`erase_at` integer,
	`erased_at` integer,
	FOREIGN KEY (`app_id`) REFERENCES `apps`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `app_installations_store_app_active` ON `app_installations` (`store_id`,`app_id`) WHERE status = 'ACTIVE';--> statement-breakpoint
CREATE INDEX `app_installations_app` ON `app_installations` (`app_id`);--> statement-breakpoint
CREATE INDEX `app_installations_erase` ON `app_installations` (`erase_at`);--> statement-breakpoint
CREATE TABLE `app_schedules` (
	`installation_id` text NOT NULL,
	`name` text NOT NULL,
	`interval_seconds` integer NOT NULL,
	`next_run_at` integer NOT NULL,
	PRIMARY KEY(`installation_id`, `name`)
);
--> statement-breakpoint
CREATE INDEX `app_schedules_due` ON `app_schedules` (`next_run_at`);--> statement-breakpoint
CREATE TABLE `app_storage` (
	`installation_id` text NOT NULL,
	`key` text NOT NULL,
	`value` text NOT NULL,
	`bytes` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`installation_id`, `key`)
);
--> statement-breakpoint
CREATE TABLE `app_versions` (
	`id` text PRIMARY KEY NOT NULL,
	`app_id` text NOT NULL,
	`version` integer NOT NULL,
	`manifest` text NOT NULL,
	`bundle` text NOT NULL,
	`created_by` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`app_id`) REFERENCES `apps`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `app_versions_app_version` ON `app_versions` (`app_id`,`version`);--> statement-breakpoint
CREATE TABLE `apps` (
	`id` text PRIMARY KEY NOT NULL,
	`handle` text NOT NULL,
	`name` text NOT NULL,
	`owner_user_id` text NOT NULL,
	`visibility` text NOT NULL,
	`latest_version` integer NOT NULL,
	`failing_since` integer,
	`suspended_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `apps_handle` ON `apps` (`handle`);--> statement-breakpoint
CREATE TABLE `audit_logs` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`kind` text NOT NULL,
	`actor_type` text NOT NULL,
	`actor_id` text NOT NULL,
	`actor_name` text NOT NULL,
	`source` text NOT NULL,
	`action` text NOT NULL,
	`target_type` text,
	`target_id` text,
	`status_code` integer NOT NULL,
	`result` text NOT NULL,
	`error_code` text,
	`request_id` text NOT NULL,
	`trace_id` text NOT NULL,
	`idempotency_key` text,
	`approval_id` text,
	`changes` text,
	`metadata` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `audit_logs_store_id` ON `audit_logs` (`store_id`,`id`);--> statement-breakpoint
CREATE TABLE `catalog_sequences` (
	`store_id` text PRIMARY KEY NOT NULL,
	`product_no` integer NOT NULL,
	`variant_no` integer NOT NULL,
	`product_count` integer DEFAULT 0 NOT NULL,
	`version` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE `categories` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`name` text NOT NULL,
	`parent_id` text,
	`flow_id` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `categories_store_parent` ON `categories` (`store_id`,`parent_id`);--> statement-breakpoint
CREATE TABLE `product_calendar` (
	`variant_id` text NOT NULL,
	`date` text NOT NULL,
	`store_id` text NOT NULL,
	`product_id` text NOT NULL,
	`stock` integer NOT NULL,
	`price` integer,
	PRIMARY KEY(`variant_id`, `date`),
	FOREIGN KEY (`variant_id`) REFERENCES `product_variants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `product_calendar_product` ON `product_calendar` (`product_id`,`date`);--> statement-breakpoint
CREATE TABLE `product_variants` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`product_id` text NOT NULL,
	`variant_no` integer NOT NULL,
	`position` integer NOT NULL,
	`option_values` text NOT NULL,
	`additional_amount` integer NOT NULL,
	`stock_quantity` integer NOT NULL,
	`sale_on` integer NOT NULL,
	`sku` text,
	`sold_quantity` integer NOT NULL,
	`out_of_stock_notified` integer NOT NULL,
	FOREIGN KEY (`product_id`) REFERENCES `products`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `product_variants_product` ON `product_variants` (`product_id`,`position`);--> statement-breakpoint
CREATE TABLE `products` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`product_no` integer NOT NULL,
	`name` text NOT NULL,
	`sale_price` integer NOT NULL,
	`list_price` integer,
	`category_id` text,
	`images` text NOT NULL,
	`status` text NOT NULL,
	`auto_sold_out` integer NOT NULL,
	`options` text NOT NULL,
	`fulfillment` text NOT NULL,
	`refund_policy` text,
	`inventory_mode` text NOT NULL,
	`flow_id` text,
	`point_earn_rate_bp` integer,
	`is_sample` integer NOT NULL,
	`discount` text,
	`version` integer NOT NULL,
	`type_changed_version` integer NOT NULL,
	`sales_count` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `products_store_no` ON `products` (`store_id`,`product_no`);--> statement-breakpoint
CREATE INDEX `products_store_status_no` ON `products` (`store_id`,`status`,`product_no`);--> statement-breakpoint
CREATE INDEX `products_store_category_no` ON `products` (`store_id`,`category_id`,`product_no`);--> statement-breakpoint
CREATE TABLE `saved_option_sets` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`name` text NOT NULL,
	`option_sort` text NOT NULL,
	`groups` text NOT NULL,
	`custom_inputs` text NOT NULL,
	`imported_product_count` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `saved_option_sets_store` ON `saved_option_sets` (`store_id`,`updated_at`);--> statement-breakpoint
CREATE TABLE `cart_items` (
	`id` text PRIMARY KEY NOT NULL,
	`cart_id` text NOT NULL,
	`store_id` text NOT NULL,
	`product_id` text NOT NULL,
	`option_id` text NOT NULL,
	`quantity` integer NOT NULL,
	`stay` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`cart_id`) REFERENCES `carts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `cart_items_cart` ON `cart_items` (`cart_id`);--> statement-breakpoint
CREATE TABLE `carts` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`customer_id` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `carts_store_customer` ON `carts` (`store_id`,`customer_id`);--> statement-breakpoint
CREATE TABLE `checkout_sheets` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`customer_id` text,
	`cart_id` text,
	`items` text NOT NULL,
	`requires_shipping` integer NOT NULL,
	`zip_code` text,
	`test_payment` integer NOT NULL,
	`status` text NOT NULL,
	`order_id` text,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `payment_attempts` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`payment_id` text NOT NULL,
	`seq` integer NOT NULL,
	`pg` text NOT NULL,
	`method` text NOT NULL,
	`provider` text,
	`pg_order_id` text NOT NULL,
	`pg_payment_key` text,
	`credential_id` text,
	`window_params` text,
	`pg_transaction_id` text,
	`approved_method` text,
	`approved_amount` integer,
	`status` text NOT NULL,
	`return_url` text NOT NULL,
	`failure` text,
	`test_payment` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`approved_at` integer,
	FOREIGN KEY (`payment_id`) REFERENCES `payments`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `payment_attempts_payment_seq` ON `payment_attempts` (`payment_id`,`seq`);--> statement-breakpoint
CREATE INDEX `payment_attempts_confirming` ON `payment_attempts` (`updated_at`) WHERE status = 'CONFIRMING';--> statement-breakpoint
CREATE TABLE `payment_refunds` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`payment_id` text NOT NULL,
	`attempt_id` text NOT NULL,
	`amount` integer NOT NULL,
	`point_refund_amount` integer NOT NULL,
	`reason` text NOT NULL,
	`status` text NOT NULL,
	`failure` text,
	`created_at` integer NOT NULL,
	`completed_at` integer,
	FOREIGN KEY (`payment_id`) REFERENCES `payments`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `payment_refunds_payment` ON `payment_refunds` (`payment_id`);--> statement-breakpoint
CREATE INDEX `payment_refunds_status` ON `payment_refunds` (`status`);--> statement-breakpoint
CREATE TABLE `payments` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`checkout_id` text NOT NULL,
	`customer_id` text,
	`order_no` integer NOT NULL,
	`status` text NOT NULL,
	`pg` text,
	`method` text,
	`pg_transaction_id` text,
	`amounts` text NOT NULL,
	`shipping_address` text,
	`guest` text,
	`guest_password_hash` text,
	`test_payment` integer NOT NULL,
	`order_id` text,
	`last_failure` text,
	`buyer_name` text,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `payments_store_created` ON `payments` (`store_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `customers` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`uid` text,
	`email` text,
	`name` text,
	`created_at` integer NOT NULL,
	`withdrawn_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `customers_store_uid` ON `customers` (`store_id`,`uid`);--> statement-breakpoint
CREATE UNIQUE INDEX `customers_store_email` ON `customers` (`store_id`,`email`);--> statement-breakpoint
CREATE TABLE `event_refs` (
	`event_id` text NOT NULL,
	`ref_id` text NOT NULL,
	PRIMARY KEY(`ref_id`, `event_id`),
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `event_sequences` (
	`store_id` text NOT NULL,
	`resource_type` text NOT NULL,
	`resource_id` text NOT NULL,
	`last` integer NOT NULL,
	PRIMARY KEY(`store_id`, `resource_type`, `resource_id`)
);
--> statement-breakpoint
CREATE TABLE `events` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`type` text NOT NULL,
	`resource_type` text,
	`resource_id` text,
	`sequence` integer,
	`data` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `events_store` ON `events` (`store_id`);--> statement-breakpoint
CREATE INDEX `events_created` ON `events` (`created_at`);--> statement-breakpoint
CREATE TABLE `cash_receipts` (
	`payment_id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`type` text NOT NULL,
	`identity_sealed` text NOT NULL,
	`identity_masked` text NOT NULL,
	`status` text NOT NULL,
	`receipt_no` text,
	`attempts` integer NOT NULL,
	`next_attempt_at` integer,
	`failure_code` text,
	`issued_at` integer,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `cash_receipts_due` ON `cash_receipts` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE TABLE `guest_lookup_failures` (
	`store_id` text NOT NULL,
	`order_no` integer NOT NULL,
	`failures` integer NOT NULL,
	`locked_until` integer,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`store_id`, `order_no`)
);
--> statement-breakpoint
CREATE TABLE `order_items` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`order_id` text NOT NULL,
	`order_item_no` integer NOT NULL,
	`product_id` text NOT NULL,
	`product_no` integer NOT NULL,
	`option_id` text NOT NULL,
	`product_name` text NOT NULL,
	`option_values` text NOT NULL,
	`quantity` integer NOT NULL,
	`unit_price` integer NOT NULL,
	`amount` integer NOT NULL,
	`delivery_group` text,
	`delivery_fee` integer NOT NULL,
	`point_allocation` integer NOT NULL,
	`stay` text,
	`fulfillment_snapshot` text NOT NULL,
	`refund_policy` text NOT NULL,
	`status` text NOT NULL,
	`test_payment` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`order_id`) REFERENCES `orders`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `order_items_order` ON `order_items` (`order_id`);--> statement-breakpoint
CREATE INDEX `order_items_store` ON `order_items` (`store_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `order_sequences` (
	`store_id` text NOT NULL,
	`date` text NOT NULL,
	`last` integer NOT NULL,
	PRIMARY KEY(`store_id`, `date`)
);
--> statement-breakpoint
CREATE TABLE `orders` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`order_no` integer NOT NULL,
	`payment_id` text NOT NULL,
	`checkout_id` text NOT NULL,
	`customer_id` text,
	`buyer` text NOT NULL,
	`guest` integer NOT NULL,
	`guest_password_hash` text,
	`status` text NOT NULL,
	`test_payment` integer NOT NULL,
	`payment` text NOT NULL,
	`amounts` text NOT NULL,
	`shipping_address` text,
	`search_text` text NOT NULL,
	`ordered_at` integer NOT NULL,
	`last_changed_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `orders_store_no` ON `orders` (`store_id`,`order_no`);--> statement-breakpoint
CREATE UNIQUE INDEX `orders_payment` ON `orders` (`payment_id`);--> statement-breakpoint
CREATE INDEX `orders_store_ordered` ON `orders` (`store_id`,`ordered_at`);--> statement-breakpoint
CREATE INDEX `orders_store_changed` ON `orders` (`store_id`,`last_changed_at`);--> statement-breakpoint
CREATE TABLE `payment_credentials` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`provider` text NOT NULL,
	`environment` text NOT NULL,
	`status` text NOT NULL,
	`merchant` text NOT NULL,
	`public_config` text NOT NULL,
	`secrets` text NOT NULL,
	`masked` text NOT NULL,
	`verification` text,
	`verification_code` text,
	`verified_at` integer,
	`version` integer NOT NULL,
	`archived_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `payment_credentials_store` ON `payment_credentials` (`store_id`,`provider`,`environment`,`status`);--> statement-breakpoint
CREATE TABLE `payment_provider_failures` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`provider` text NOT NULL,
	`method` text NOT NULL,
	`easy_pay_provider` text,
	`code` text NOT NULL,
	`at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `payment_provider_failures_store` ON `payment_provider_failures` (`store_id`,`at`);--> statement-breakpoint
CREATE TABLE `payment_providers` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`provider` text NOT NULL,
	`enabled` integer NOT NULL,
	`sandbox_mode` integer NOT NULL,
	`easy_pay_providers` text NOT NULL,
	`sandbox_payment_at` integer,
	`sandbox_refund_at` integer,
	`live_switched_at` integer,
	`version` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `payment_providers_store_provider` ON `payment_providers` (`store_id`,`provider`);--> statement-breakpoint
CREATE TABLE `payment_settings` (
	`store_id` text PRIMARY KEY NOT NULL,
	`priority` text NOT NULL,
	`checkout_origins` text NOT NULL,
	`platform_live_enabled` integer NOT NULL,
	`warning_mailed_at` integer,
	`version` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `sandbox_gateway_payments` (
	`pg_payment_key` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`provider` text NOT NULL,
	`credential_id` text NOT NULL,
	`payment_id` text NOT NULL,
	`pg_order_id` text NOT NULL,
	`order_name` text NOT NULL,
	`method` text NOT NULL,
	`easy_pay_provider` text,
	`amount` integer NOT NULL,
	`gateway_amount` integer NOT NULL,
	`canceled_amount` integer NOT NULL,
	`status` text NOT NULL,
	`slow_confirm` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `sandbox_gateway_payments_payment` ON `sandbox_gateway_payments` (`payment_id`);--> statement-breakpoint
CREATE TABLE `members` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`user_id` text NOT NULL,
	`role` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`store_id`) REFERENCES `stores`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `members_store_user` ON `members` (`store_id`,`user_id`);--> statement-breakpoint
CREATE INDEX `members_user` ON `members` (`user_id`);--> statement-breakpoint
CREATE TABLE `plan_usage` (
	`store_id` text NOT NULL,
	`month` text NOT NULL,
	`ai_actions` integer NOT NULL,
	PRIMARY KEY(`store_id`, `month`),
	FOREIGN KEY (`store_id`) REFERENCES `stores`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `store_versions` (
	`store_id` text NOT NULL,
	`scope` text NOT NULL,
	`version` integer NOT NULL,
	PRIMARY KEY(`store_id`, `scope`)
);
--> statement-breakpoint
CREATE TABLE `stores` (
	`id` text PRIMARY KEY NOT NULL,
	`code` text NOT NULL,
	`name` text NOT NULL,
	`settings` text NOT NULL,
	`plan` text NOT NULL,
	`ever_public_at` integer,
	`first_live_order_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `stores_code` ON `stores` (`code`);--> statement-breakpoint
CREATE TABLE `uploads` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`purpose` text NOT NULL,
	`filename` text NOT NULL,
	`content_type` text NOT NULL,
	`size` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `uploads_store` ON `uploads` (`store_id`,`id`);--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`webhook_id` text NOT NULL,
	`event_id` text NOT NULL,
	`event_type` text NOT NULL,
	`resource_type` text,
	`resource_id` text,
	`status` text NOT NULL,
	`attempt_count` integer NOT NULL,
	`next_attempt_at` integer,
	`last_attempt_at` integer,
	`response_status_code` integer,
	`response_time_ms` integer,
	`response_body_excerpt` text,
	`error_code` text,
	`failure_reason` text,
	`redelivery_of` text,
	`redelivered_as` text,
	`payload` text,
	`payload_truncated` integer,
	`payload_masked` integer,
	`request_headers` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`webhook_id`) REFERENCES `webhooks`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `webhook_deliveries_due` ON `webhook_deliveries` (`next_attempt_at`,`webhook_id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_webhook_due` ON `webhook_deliveries` (`webhook_id`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_webhook` ON `webhook_deliveries` (`webhook_id`,`id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_event` ON `webhook_deliveries` (`event_id`);--> statement-breakpoint
CREATE TABLE `webhooks` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`url` text NOT NULL,
	`event_types` text NOT NULL,
	`secret` text NOT NULL,
	`old_secret` text,
	`old_secret_expires_at` integer,
	`status` text NOT NULL,
	`suspended_at` integer,
	`failing_since` integer,
	`last_failure_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `webhooks_store` ON `webhooks` (`store_id`);--> statement-breakpoint
CREATE TABLE `idempotency_keys` (
	`token_id` text NOT NULL,
	`key` text NOT NULL,
	`fingerprint` text NOT NULL,
	`state` text NOT NULL,
	`status` integer,
	`body` text,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`token_id`, `key`)
);
--> statement-breakpoint
CREATE TABLE `mail_outbox` (
	`id` text PRIMARY KEY NOT NULL,
	`to` text NOT NULL,
	`subject` text NOT NULL,
	`body` text NOT NULL,
	`created_at` integer NOT NULL
);
