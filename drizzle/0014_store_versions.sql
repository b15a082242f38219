CREATE TABLE `store_versions` (
	`store_id` text NOT NULL,
	`scope` text NOT NULL,
	`version` integer NOT NULL,
	PRIMARY KEY(`store_id`, `scope`)
);
