"""Importing a file of plants, for every front end: the file read and checked whole (`files`),
planned against the ledger (`plan`: a new batch, or the rest of an earlier one), and sent by the
one runner (`runner`), which writes every row to the ledger before its request goes out."""

from plantstore_tui.core.importing.files import (
    ImportFormat,
    Validation,
    validate,
)
from plantstore_tui.core.importing.plan import (
    CheckedFile,
    CreatedRow,
    EarlierImport,
    ImportLedger,
    ImportPlan,
    ImportRow,
    KnownCreated,
    check_file,
    earlier_import,
    file_stamp,
    known_created,
    new_batch,
    open_for_import,
    plan_import,
    resume_batch,
    rows_to_send,
)
from plantstore_tui.core.importing.results import (
    ImportProgress,
    ImportSettings,
    RowResult,
    StopReason,
    left_out,
    refused_result,
    result_of,
    stop_words,
)
from plantstore_tui.core.importing.rows import FileProblem, SourceRow
from plantstore_tui.core.importing.runner import ImportRunner
from plantstore_tui.core.store.batches import BatchesChanged, BatchInUse, ImportOwner

__all__ = [
    "BatchInUse",
    "BatchesChanged",
    "CheckedFile",
    "CreatedRow",
    "EarlierImport",
    "FileProblem",
    "ImportFormat",
    "ImportLedger",
    "ImportOwner",
    "ImportPlan",
    "ImportProgress",
    "ImportRow",
    "ImportRunner",
    "ImportSettings",
    "KnownCreated",
    "RowResult",
    "SourceRow",
    "StopReason",
    "Validation",
    "check_file",
    "earlier_import",
    "file_stamp",
    "known_created",
    "left_out",
    "new_batch",
    "open_for_import",
    "plan_import",
    "refused_result",
    "result_of",
    "resume_batch",
    "rows_to_send",
    "stop_words",
    "validate",
]
