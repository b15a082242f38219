CREATE TABLE `sales_days` (
	`store_id` text NOT NULL,
	`date` text NOT NULL,
	`pg` text NOT NULL,
	`method` text NOT NULL,
	`test_payment` integer NOT NULL,
	`payment_count` integer NOT NULL,
	`payment_amount` integer NOT NULL,
	`refund_count` integer NOT NULL,
	`refund_amount` integer NOT NULL,
	PRIMARY KEY(`store_id`, `date`, `pg`, `method`, `test_payment`)
);
--> statement-breakpoint
-- Approvals and completed cash refunds made before the table existed, on their Korean dates.
INSERT INTO `sales_days` (`store_id`, `date`, `pg`, `method`, `test_payment`, `payment_count`, `payment_amount`, `refund_count`, `refund_amount`)
SELECT `store_id`, `date`, `pg`, `method`, `test_payment`, SUM(`pc`), SUM(`pa`), SUM(`rc`), SUM(`ra`) FROM (
  SELECT `store_id`, date((`approved_at` + 32400000) / 1000, 'unixepoch') AS `date`, `pg`, coalesce(`approved_method`, `method`) AS `method`, `test_payment`,
    1 AS `pc`, `approved_amount` AS `pa`, 0 AS `rc`, 0 AS `ra`
  FROM `payment_attempts` WHERE `status` IN ('APPROVED', 'AUTO_CANCELED') AND `approved_at` IS NOT NULL
  UNION ALL
  SELECT r.`store_id`, date((r.`completed_at` + 32400000) / 1000, 'unixepoch'), a.`pg`, coalesce(a.`approved_method`, a.`method`), a.`test_payment`, 0, 0, 1, r.`amount`
  FROM `payment_refunds` r JOIN `payment_attempts` a ON a.`id` = r.`attempt_id` WHERE r.`status` = 'COMPLETED' AND r.`amount` > 0
) GROUP BY `store_id`, `date`, `pg`, `method`, `test_payment`;
