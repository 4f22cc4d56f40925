"""A bounded, seeded slice of the run-time size campaign (size_campaign.py): the examples'
and lit inputs' functions with sizes that keep or break their types; the VM and the
interpreter agree or both refuse."""

from __future__ import annotations

from size_campaign import campaign


def test_vm_and_interpreter_agree_on_random_sizes() -> None:
    counts, failures, n_targets = campaign(inputs=600, seed=0)
    assert n_targets >= 50
    assert counts["agree"] >= 300 and counts["both refuse"] >= 60, counts
    assert not failures, "\n".join(failures[:20])
