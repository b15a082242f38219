CREATE TABLE `flow_runs` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`order_id` text NOT NULL,
	`order_item_id` text NOT NULL,
	`flow_id` text NOT NULL,
	`version` integer NOT NULL,
	`trigger` text NOT NULL,
	`actor` text NOT NULL,
	`input` text NOT NULL,
	`from_state` text,
	`to_state` text NOT NULL,
	`core_status` text NOT NULL,
	`notifications` text NOT NULL,
	`timers` text NOT NULL,
	`event_ids` text NOT NULL,
	`at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `flow_runs_item` ON `flow_runs` (`order_item_id`,`at`);--> statement-breakpoint
CREATE TABLE `flow_timers` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`order_item_id` text NOT NULL,
	`state` text NOT NULL,
	`transition` integer NOT NULL,
	`kind` text NOT NULL,
	`to_state` text NOT NULL,
	`status` text NOT NULL,
	`due_at` integer,
	`remaining_ms` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `flow_timers_due` ON `flow_timers` (`status`,`due_at`);--> statement-breakpoint
CREATE INDEX `flow_timers_item` ON `flow_timers` (`order_item_id`,`status`);--> statement-breakpoint
CREATE TABLE `flow_versions` (
	`flow_id` text NOT NULL,
	`version` integer NOT NULL,
	`store_id` text NOT NULL,
	`definition` text NOT NULL,
	`graph` text,
	`published_at` integer NOT NULL,
	PRIMARY KEY(`flow_id`, `version`),
	FOREIGN KEY (`flow_id`) REFERENCES `flows`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `flows` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`name` text NOT NULL,
	`kind` text NOT NULL,
	`is_default` integer NOT NULL,
	`progression` text NOT NULL,
	`published_version` integer,
	`draft` text,
	`draft_graph` text,
	`default_key` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `flows_store` ON `flows` (`store_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `flows_store_default` ON `flows` (`store_id`,`default_key`);--> statement-breakpoint
CREATE TABLE `order_item_flows` (
	`order_item_id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`order_id` text NOT NULL,
	`flow_id` text NOT NULL,
	`version` integer NOT NULL,
	`state` text NOT NULL,
	`core_status` text NOT NULL,
	`group_id` text,
	`claim_hold` integer NOT NULL,
	`inputs` text NOT NULL,
	`entered_at` integer NOT NULL,
	`fulfilled_at` integer,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `order_item_flows_order` ON `order_item_flows` (`order_id`);--> statement-breakpoint
CREATE INDEX `order_item_flows_group` ON `order_item_flows` (`group_id`);