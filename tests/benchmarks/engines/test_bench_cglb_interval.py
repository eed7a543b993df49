"""The dense-reference benchmark of skc's bounds: on a small case every bound and the finalists'
interval hold the exact value, and the table and its command are written."""

from __future__ import annotations

from benchmarks.engines import bench_cglb_interval as bench


def test_a_small_run_holds_and_writes_its_table(tmp_path):
    out = tmp_path / "cglb.md"
    bench.main(
        [
            "--sizes",
            "150",
            "--noise",
            "0.01",
            "--series",
            "03-mauna",
            "--m",
            "20",
            "--out",
            str(out),
        ]
    )
    text = out.read_text()
    assert "6 cases" not in text  # two kernels (mauna, the hourly structure) × gaps: 4 cases
    assert "4 cases, 0 where a bound misses the exact value" in text
    assert text.count("| yes |") == 4 and "--sizes 150" in text


def test_the_noise_is_set_on_the_top_level_term_only():
    assert bench._with_noise(
        "(C(sd=1.0) + WN(sd=0.4)) * SE(lengthscale=1.0, sd=1.0) + WN(sd=0.2)", 0.01
    ) == ("(C(sd=1.0) + WN(sd=0.4)) * SE(lengthscale=1.0, sd=1.0) + WN(sd=0.01)")
    assert (
        bench._with_noise("SE(lengthscale=1.0, sd=1.0)", 0.3)
        == "SE(lengthscale=1.0, sd=1.0) + WN(sd=0.3)"
    )
