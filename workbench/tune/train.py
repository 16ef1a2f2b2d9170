"""Fine-tune the embedder: sentence-transformers' SentenceTransformerTrainer with
MultipleNegativesRankingLoss on (query, gold document, hard negative) triples of the training
queries. CPU-friendly defaults (benchmarks/bench_fix_loop.py measures them): one epoch, batch 16,
two hard negatives per gold, 128 tokens per text in training (the saved model keeps its own window
for indexing); seeded."""

from __future__ import annotations

import contextlib
import math
import shutil
import time
import uuid
from pathlib import Path

import msgspec

from workbench.errors import BadInput
from workbench.fsutil import atomic_replace_dir, atomic_write_bytes, file_identity, fresh_temp_dir, sha256_file
from workbench.progress import Progress
from workbench.project.files import Project
from workbench.tune.split import Split, held_out_documents

TUNED_DIR = "tuned"
MODEL_DIR = "model"
RECORD_FILE = "tune.json"
TRAINING_FILE = "workbench-training.json"


class TuneError(BadInput):
    title = "Cannot tune"


def model_problem(folder: Path) -> str | None:
    """Why a saved model's weights cannot load ("path: reason"), or None: every *.safetensors file
    holds the header and the tensor bytes its header promises (a truncated or overwritten file is
    caught here, from 8 bytes and its header, instead of as a traceback in the loader)."""
    import json
    import struct

    for path in sorted(folder.rglob("*.safetensors")):
        try:
            size = path.stat().st_size
            with open(path, "rb") as fh:
                head = fh.read(8)
                if len(head) < 8:
                    return f"{path}: {size} bytes, shorter than a safetensors header"
                (n,) = struct.unpack("<Q", head)
                if n > min(size - 8, 100 * 2**20):
                    return f"{path}: its header claims {n:,} bytes, the file has {size:,}"
                header = json.loads(fh.read(n))
        except (OSError, ValueError, RecursionError) as exc:
            return f"{path}: not a readable safetensors file ({exc})"
        if not isinstance(header, dict):
            return f"{path}: its header is not an object"
        ends = [t.get("data_offsets", [0, 0])[1] for k, t in header.items() if k != "__metadata__" and isinstance(t, dict)]
        need = 8 + n + max((e for e in ends if isinstance(e, int)), default=0)
        if size != need:
            return f"{path}: {size:,} bytes, its header says {need:,} (truncated or overwritten)"
    return None


class TuneOptions(msgspec.Struct, frozen=True):
    train_share: float = 0.7
    seed: int = 13  # the split's and the trainer's
    epochs: int = 1
    batch_size: int = 16
    learning_rate: float = 2e-5
    negatives_per_gold: int = 2
    max_seq_length: int = 128  # tokens per text while training; 0: the model's own window

    def __post_init__(self) -> None:
        # NaN passes every range check (click's FloatRange included): refused here, naming the option
        if not (math.isfinite(self.train_share) and 0.05 <= self.train_share <= 0.95):
            raise TuneError(f"--train-share {self.train_share!r}: must be a number from 0.05 to 0.95")
        if not (math.isfinite(self.learning_rate) and self.learning_rate > 0):
            raise TuneError(f"learning rate {self.learning_rate!r}: must be a finite number above 0")
        for name in ("epochs", "batch_size", "negatives_per_gold"):
            if getattr(self, name) < 1:
                raise TuneError(f"--{name.replace('_', '-')} {getattr(self, name)}: must be 1 or more")
        if self.max_seq_length < 0:
            raise TuneError(f"--max-seq-length {self.max_seq_length}: must be 0 or more")


class TuneRecord(msgspec.Struct, frozen=True):
    base_model: str
    split: Split
    options: TuneOptions
    examples: int  # training triples
    left_out: int  # triples dropped because a document belongs to a held-out query
    loss: str
    seconds: float
    # sha256 of each weights file as trained (path below the model folder → hash): weights replaced
    # in place since are found and named, never used as if trained here ({} = an older record)
    weights: dict[str, str] = {}


WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".onnx")
# beside the model folder (a file inside it would change the model's fingerprint): per weights
# file, its file_identity and hash when last checked, so a check costs a stat until a file changes
WEIGHTS_CHECKED = ".weights-checked.json"


def weights_hashes(folder: Path) -> dict[str, str]:
    """Every weights file of a saved model, by its path below ``folder``, with its sha256."""
    return {str(p.relative_to(folder)): sha256_file(p) for p in sorted(folder.rglob("*"))
            if p.is_file() and p.suffix in WEIGHT_SUFFIXES}


def weights_changed(project: Project, record: TuneRecord) -> str | None:
    """Why the saved weights are not the ones `tune` trained ("path: reason"), or None. Each file
    is hashed when its identity (size, mtime, ctime, inode) differs from its last check: weights
    replaced in place at the same size are found by their content, not by their size."""
    if not record.weights:
        return None
    folder = tuned_root(project) / MODEL_DIR
    stamp_path = tuned_root(project) / WEIGHTS_CHECKED
    try:
        checked = msgspec.json.decode(stamp_path.read_bytes(), type=dict[str, list])
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        checked = {}
    now: dict[str, list] = {}
    for rel, digest in sorted(record.weights.items()):
        path = folder / rel
        try:
            ident = [*file_identity(path), digest]
        except OSError:
            return f"{path}: missing (`tune` saved it)"
        if checked.get(rel) != ident:
            if sha256_file(path) != digest:
                return f"{path}: its content is not the weights `tune` trained (replaced or changed since)"
        now[rel] = ident
    if now != checked:
        with contextlib.suppress(OSError):  # a read-only project is hashed on every check, as before
            atomic_write_bytes(stamp_path, msgspec.json.encode(now))
    return None


def tuned_root(project: Project) -> Path:
    return project.state_dir / TUNED_DIR


def load_record(project: Project) -> TuneRecord | None:
    try:
        return msgspec.json.decode((tuned_root(project) / RECORD_FILE).read_bytes(), type=TuneRecord)
    except (OSError, msgspec.DecodeError):
        return None


def triples(project: Project, split: Split, negatives_per_gold: int) -> tuple[list[tuple[str, str, str]], int]:
    """(query, gold text, hard-negative text) of the training queries; none touches a held-out query's documents."""
    banned = held_out_documents(project.queries, split)
    text = lambda d: f"{project.documents[d].title}\n{project.documents[d].text}"  # noqa: E731 - as the index embeds it
    out, left_out = [], 0
    for qid in split.train:
        q = project.query(qid)
        negatives = [n for n in q.hard_negative_ids if n in project.documents]
        for g in q.gold_doc_ids:
            for n in negatives[:negatives_per_gold]:
                if g in banned or n in banned or g not in project.documents:
                    left_out += 1
                    continue
                out.append((q.query, text(g), text(n)))
    return out, left_out


def train(project: Project, split: Split, options: TuneOptions, progress: Progress | None = None) -> TuneRecord:
    """Fine-tune and save the model and its record under .workbench/tuned/ (whole or not at all)."""
    if project.config.embedding.backend != "sentence-transformers":
        raise TuneError("`workbench tune` fine-tunes a sentence-transformers embedder; [embedding] backend is "
                        f"{project.config.embedding.backend!r}")
    examples, left_out = triples(project, split, options.negatives_per_gold)
    if not examples:
        raise TuneError(f"no training triples: the {len(split.train)} training queries have no hard negatives "
                        "outside the held-out queries' documents", hint="run `workbench collide` to find hard negatives")
    from datasets import Dataset
    from sentence_transformers import SentenceTransformer, SentenceTransformerTrainer, SentenceTransformerTrainingArguments
    try:  # sentence-transformers ≥ 6 moved them; 3–5 have them here
        from sentence_transformers.sentence_transformer.losses import MultipleNegativesRankingLoss
        from sentence_transformers.sentence_transformer.training_args import BatchSamplers
    except ImportError:
        from sentence_transformers.losses import MultipleNegativesRankingLoss
        from sentence_transformers.training_args import BatchSamplers
    from transformers import TrainerCallback

    from index.embedders import SentenceTransformerEmbedder

    base = project.config.embedding.model
    model = SentenceTransformer(SentenceTransformerEmbedder(base)._resolve_path(), device="cpu")
    window = model.max_seq_length
    if options.max_seq_length:  # attention and the feed-forward cost grow with it: the CPU's main lever
        model.max_seq_length = min(window, options.max_seq_length)
    data = Dataset.from_dict({"anchor": [a for a, _, _ in examples], "positive": [p for _, p, _ in examples],
                              "negative": [n for _, _, n in examples]})

    class Report(TrainerCallback):
        def on_step_end(self, args, state, control, **kwargs):
            if progress:
                progress("tune", state.global_step, state.max_steps)

    target = tuned_root(project) / MODEL_DIR
    target.parent.mkdir(parents=True, exist_ok=True)
    work = fresh_temp_dir(target)
    start = time.perf_counter()
    try:
        args = SentenceTransformerTrainingArguments(
            output_dir=str(work / "trainer"), num_train_epochs=options.epochs, per_device_train_batch_size=options.batch_size,
            learning_rate=options.learning_rate, seed=options.seed, data_seed=options.seed,
            use_cpu=True, save_strategy="no", report_to=[], logging_strategy="no", disable_tqdm=True,
            batch_sampler=BatchSamplers.NO_DUPLICATES, dataloader_num_workers=0)
        trainer = SentenceTransformerTrainer(model=model, args=args, train_dataset=data,
                                             loss=MultipleNegativesRankingLoss(model), callbacks=[Report()])
        for cb in list(trainer.callback_handler.callbacks):  # our progress reports the steps; no prints, no model card
            if type(cb).__name__ in ("PrinterCallback", "ProgressCallback", "ModelCardCallback"):
                trainer.remove_callback(cb)
        trainer.train()
        shutil.rmtree(work / "trainer", ignore_errors=True)
        model.max_seq_length = window  # the index embeds whole chunks, as the base embedder does
        model.save(str(work))
        # Every training's weights have the same size, and the model's identity (its index folder,
        # its embedding-cache key: workbench/tune/retrieval.py) is read from names, sizes and small
        # files: this small file makes each training a new identity, so a retrained model never
        # reuses the previous one's index or chunk vectors.
        (work / TRAINING_FILE).write_bytes(msgspec.json.encode(
            {"training": uuid.uuid4().hex, "options": options, "split_seed": split.seed, "base_model": base}))
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    weights = weights_hashes(work)
    atomic_replace_dir(work, target)
    record = TuneRecord(base, split, options, len(examples), left_out, "MultipleNegativesRankingLoss",
                        round(time.perf_counter() - start, 1), weights)
    atomic_write_bytes(tuned_root(project) / RECORD_FILE, msgspec.json.format(msgspec.json.encode(record), indent=1))
    return record
