"""Unit tests of bench/capacity-report (python3 -m unittest discover -s bench/tests), run by
Tests/EndToEndTests/CapacityReportTests: the unit arithmetic on a small checked-in record
(capacity-sample.json), and docs/capacity.md equal to what the report writes from the newest
committed bench/records/capacity-*.json, so the document cannot be edited away from its data."""

from __future__ import annotations

import copy
import importlib.machinery
import importlib.util
import json
import os
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
_loader = importlib.machinery.SourceFileLoader("capacity_report", os.path.join(ROOT, "bench", "capacity-report"))
_spec = importlib.util.spec_from_loader("capacity_report", _loader)
report = importlib.util.module_from_spec(_spec)
_loader.exec_module(report)


def sample() -> dict:
    with open(os.path.join(HERE, "capacity-sample.json")) as file:
        return json.load(file)


def assumptions() -> dict:
    with open(os.path.join(ROOT, "bench", "capacity-assumptions.json")) as file:
        return json.load(file)


class UnitRules(unittest.TestCase):
    def test_reads_round_up_to_4_kb_and_cost_at_least_one(self):
        self.assertEqual([report.read_units(size) for size in (0, 1, 4096, 4097, 12289)], [1, 1, 1, 2, 4])

    def test_writes_round_up_to_1_kb_and_cost_at_least_one(self):
        self.assertEqual([report.write_units(size) for size in (0, 1, 1024, 1025, 3000)], [1, 1, 1, 2, 3])

    def test_prices(self):
        self.assertAlmostEqual(report.dollars(2_000_000, 0.625), 1.25)
        self.assertAlmostEqual(report.kms_dollars(30_000, 0.03, free=20_000), 0.03)
        self.assertAlmostEqual(report.kms_dollars(10_000, 0.03, free=20_000), 0.0)
        self.assertAlmostEqual(report.storage_dollars(30 * 1024**3, 0.25, free_gb=25), 1.25)


class SampleRecord(unittest.TestCase):
    def test_phase_costs_per_operation(self):
        costs = report.phase_costs(sample())
        get_me = costs["get_me"]
        self.assertAlmostEqual(get_me["reads"], 2.0)
        self.assertAlmostEqual(get_me["read_units"], 3.0)  # 500 B -> 1, 5000 B -> 2
        self.assertAlmostEqual(get_me["writes"], 1.0)
        self.assertAlmostEqual(get_me["write_units"], 2.0)  # 1500 B -> 2
        self.assertAlmostEqual(get_me["cloudkit"], 1.0)
        self.assertAlmostEqual(get_me["cpu_us"], 1000.0)  # 0.01 s (/proc stat) over 10 operations, no idle phase
        self.assertAlmostEqual(get_me["cpu_us_schedstat"], 500.0)
        self.assertAlmostEqual(costs["connect"]["kms"], 1.0)

    def test_a_month_of_get_me_in_dollars(self):
        stated = assumptions()
        stated["usage"].update(
            tool_calls_per_person_per_day=10, sessions_per_person_per_day=0, connections_per_person_per_month=0.0001,
            tool_mix={"get_me": 1.0, "list_todos": 0.0, "add_todo": 0.0})
        costs = report.phase_costs(sample())
        stored = report.storage(sample(), stated["usage"], costs)
        row = report.scale(sample(), stated, costs, 1000, stored)
        # 10 calls a day x 1000 people x 365/12 days x 2 WRU, plus the connect's one 1-KB write.
        connects = 0.0001 * 1000
        self.assertAlmostEqual(row["month_write_units"], 10 * 1000 * 365 / 12 * 2 + connects * 1 + connects * 1, places=3)
        self.assertAlmostEqual(row["dynamodb_write_dollars"], row["month_write_units"] / 1e6 * 0.625)
        self.assertAlmostEqual(row["month_read_units"], 10 * 1000 * 365 / 12 * 3, places=3)
        # Peak: 10 calls a day x 1000 people / 86400 s x the peak factor, 2 WRU each.
        self.assertAlmostEqual(row["peak_write_units"], 10 * 1000 / 86400 * stated["usage"]["peak_factor"] * 2,
                               places=2)

    def test_storage_caps_items_the_disconnect_deletes_at_the_connection_life(self):
        stated = assumptions()
        usage = stated["usage"]
        costs = report.phase_costs(sample())
        stored = report.storage(sample(), usage, costs)
        per_day = usage["connections_per_person_per_month"] / (365 / 12)
        life = (365 / 12) / usage["connections_per_person_per_month"]
        grant = stored["kinds"]["GRANT"]
        self.assertAlmostEqual(grant["items"], per_day * min(90, life))
        self.assertAlmostEqual(grant["bytes"], per_day * min(90, life) * (900 + 100))
        self.assertAlmostEqual(grant["items_ttl"], per_day * (90 + usage["ttl_deletion_lag_days"]))
        client = stored["kinds"]["CLIENT"]
        self.assertAlmostEqual(client["growth"], usage["connections_per_person_per_month"] * (200 + 100))

    def test_an_exceeded_quota_is_named_as_the_bottleneck(self):
        stated = copy.deepcopy(assumptions())
        stated["quotas"]["kms_symmetric_requests_per_second"]["value"] = 0.0001
        text = report.render(sample(), stated, "bench/tests/capacity-sample.json")
        self.assertIn("**KMS symmetric request quota** is exceeded", text)


class CommittedDocument(unittest.TestCase):
    def test_docs_capacity_md_is_what_the_report_writes_from_the_newest_record(self):
        record = report.newest_record()
        with open(record) as file:
            data = json.load(file)
        self.assertEqual(data["benchmark"], "bench/capacity")
        self.assertEqual(data["errors"], [], "the committed record has failed operations")
        with open(os.path.join(ROOT, "bench", "capacity-assumptions.json")) as file:
            stated = json.load(file)
        expected = report.render(data, stated, os.path.relpath(record, ROOT))
        with open(os.path.join(ROOT, "docs", "capacity.md")) as file:
            self.assertEqual(file.read(), expected,
                             "docs/capacity.md was edited by hand or is stale: run bench/capacity-report")

    def test_check_mode_notices_an_edit(self):
        with tempfile.TemporaryDirectory() as directory:
            output = os.path.join(directory, "capacity.md")
            arguments = ["--record", os.path.join(HERE, "capacity-sample.json"), "--output", output]
            self.assertEqual(report.main(arguments), 0)
            self.assertEqual(report.main(arguments + ["--check"]), 0)
            with open(output, "a") as file:
                file.write("a hand edit\n")
            self.assertEqual(report.main(arguments + ["--check"]), 1)


if __name__ == "__main__":
    unittest.main()
