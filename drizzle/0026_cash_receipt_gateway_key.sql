ALTER TABLE `cash_receipts` ADD `gateway_receipt_key` text;--> statement-breakpoint
ALTER TABLE `cash_receipts` ADD `issue_count` integer DEFAULT 0 NOT NULL;