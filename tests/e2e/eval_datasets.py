"""Tiny datasets in AISBench's layouts for the evaluation tests, and the stand-in's scripted replies.

Each set has four questions the stand-in answers three of right, so both runners' scores are exactly
75.00 (guide references for Qwen3.5-2B: gsm8k 77.71, textvqa 76.09).
"""
import json
import struct
import zlib
from pathlib import Path

GSM8K = [  # (question, gold, the stand-in's reply)
    ("Ann has 3 apples and buys 4 more. How many apples?", "7", "3 + 4 = 7 apples. answer:7"),
    ("A box holds 12 eggs. How many eggs in 3 boxes?", "36", "12 * 3 = 36. answer:36"),
    ("Tom reads 20 pages a day for 5 days. Pages?", "100", "20 * 5 = 100 pages. answer:100"),
    ("A train goes 60 km/h for 2 hours. Distance?", "120", "60 + 2 = 62. answer:62"),  # the wrong one
]
# (question id, question, the ten annotators' answers, the stand-in's reply)
TEXTVQA = [
    (101, "What word is on the red sign?", ["stop"] * 10, "Stop."),
    (102, "What brand is the soda can?", ["coca cola"] * 6 + ["coke"] * 4, "Coca-Cola"),
    (103, "How many candles are on the cake?", ["3"] * 8 + ["three"] * 2, "three"),
    (104, "What colour is the bus?", ["yellow"] * 10, "blue"),  # the wrong one
]


def answers():
    """The stand-in's answers.json: each question's text picks its reply."""
    out = [{"contains": "Question: " + q, "reply": reply} for q, _gold, reply in GSM8K]
    out += [{"contains": q, "reply": reply} for _id, q, _gold, reply in TEXTVQA]
    return out


def write_gsm8k(path: Path, train: bool = True) -> Path:
    """DIR/test.jsonl (and train.jsonl, which AISBench's gsm8k loader opens too)."""
    path.mkdir(parents=True, exist_ok=True)
    rows = "".join(json.dumps({"question": q, "answer": "Work.\n#### %s" % gold}) + "\n" for q, gold, _r in GSM8K)
    (path / "test.jsonl").write_text(rows)
    if train:
        (path / "train.jsonl").write_text(rows)
    return path


def png(shade: int) -> bytes:
    """A valid 8x8 grey PNG."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    raw = b"".join(b"\x00" + bytes([shade]) * 8 for _row in range(8))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 8, 8, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def write_textvqa(path: Path) -> Path:
    """DIR/textvqa_json/textvqa_val.jsonl, textvqa_val_annotations.json and images/ (paths relative to DIR)."""
    (path / "textvqa_json").mkdir(parents=True, exist_ok=True)
    (path / "images").mkdir(exist_ok=True)
    rows, annotations = [], []
    for number, (qid, question, gold, _reply) in enumerate(TEXTVQA):
        (path / "images" / ("%d.png" % qid)).write_bytes(png(40 * number))
        rows.append(json.dumps({"question_id": qid, "question": question, "image": "images/%d.png" % qid}))
        annotations.append({"question_id": qid, "answers": [{"answer": a, "answer_id": i + 1}
                                                            for i, a in enumerate(gold)]})
    (path / "textvqa_json" / "textvqa_val.jsonl").write_text("\n".join(rows) + "\n")
    (path / "textvqa_json" / "textvqa_val_annotations.json").write_text(json.dumps({"annotations": annotations}))
    return path
