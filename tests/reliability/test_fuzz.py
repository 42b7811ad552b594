"""Issue 8, input: mutated corpus PDFs (byte flips, truncations, splices, insertions, deletions)
through the upload path always end in a result or a coded ConversionError, and the test process
survives. The long run (>= 10,000 cases) is `python -m bench.fuzz`; see bench/results/."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.fuzz import KINDS, Mutation, corpus_files, mutate, run_case

FILES = corpus_files()
DONORS = [f.read_bytes() for f in FILES]
CODES = {
    "EMPTY_FILE", "NOT_A_PDF", "PDF_DAMAGED", "PDF_ENCRYPTED", "NO_PAGES", "TOO_MANY_PAGES",
    "FILE_TOO_LARGE", "PAGE_TOO_LARGE", "PDF_BOMB", "PAGE_TIMEOUT",
}  # fmt: skip

mutations = st.lists(
    st.builds(
        Mutation,
        kind=st.sampled_from(KINDS),
        at=st.floats(0, 1, allow_nan=False),
        size=st.sampled_from((1, 2, 4, 16, 256, 4096)),
        value=st.integers(0, 1 << 16),
    ),
    min_size=1,
    max_size=6,
)


@settings(
    max_examples=int(os.environ.get("AXIYA_FUZZ_EXAMPLES", "60")),
    deadline=None,
    derandomize=True,  # CI is reproducible; the long run in bench/ explores
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(source=st.integers(0, len(FILES) - 1), ops=mutations)
def test_mutated_pdfs_end_in_a_result_or_a_code(tmp_path, source, ops):
    parent = os.getpid()
    outcome = run_case(mutate(DONORS[source], ops, DONORS), workdir=tmp_path)
    assert os.getpid() == parent
    assert outcome == "ok" or outcome.split(":")[0] in CODES, outcome
