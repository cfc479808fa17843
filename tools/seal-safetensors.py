#!/usr/bin/env python3
"""Seal a safetensors file: store each tensor's SHA-256 in its header.

The digests go into the header's "__metadata__" map (strings only, the
format's place for what a writer wants to say) as "sha256:NAME": the
SHA-256 of tensor NAME's bytes, 64 lowercase hex digits. The grader checks
them whenever it loads Lab 6's model (common/safetensors.c), so a byte
flipped inside a tensor is found and the tensor named. The tensors' bytes
are not touched: only the header is rewritten (compact JSON, the metadata
first, padded with spaces so that the data stays 8-byte aligned).

    python3 tools/seal-safetensors.py labs/06-seq2seq/data/model.safetensors
    python3 tools/seal-safetensors.py --check FILE   # verify, change nothing

Files that belong to the model (Lab 6's vocabularies: a word changed
there changes every decoded sentence) are sealed with it: --with NAME
stores the SHA-256 of the file NAME beside the model as
"file-sha256:NAME", and --check verifies every such digest too.

    python3 tools/seal-safetensors.py --with src.vocab --with tgt.vocab \
        labs/06-seq2seq/data/model.safetensors

tools/train-seq2seq.py writes its model sealed already; this is for a model
made elsewhere, or one written before the digests. Only the standard library
is needed. Exit status: 0 sealed (or, with --check, every digest present
and right), 1 a digest missing or wrong (--check), 2 not a safetensors file
(or a file named by --with that cannot be read).
"""
import argparse
import hashlib
import json
import os
import struct
import sys

PREFIX = "sha256:"
FILE_PREFIX = "file-sha256:"


def read(path):
    """The header (an ordered dict) and the data bytes of a safetensors file."""
    with open(path, "rb") as f:
        blob = f.read()
    if len(blob) < 8:
        raise ValueError("shorter than the 8-byte header length")
    (n,) = struct.unpack("<Q", blob[:8])
    if n < 2 or n > len(blob) - 8:
        raise ValueError(f"header length {n} does not fit a {len(blob)}-byte file")
    header = json.loads(blob[8:8 + n].decode("utf-8"))
    if not isinstance(header, dict):
        raise ValueError("the header is not a JSON object")
    return header, blob[8 + n:]


def tensors(header, data):
    """(name, bytes) of every tensor, checked against the data."""
    out = []
    for name, t in header.items():
        if name == "__metadata__":
            continue
        begin, end = t["data_offsets"]
        if not 0 <= begin <= end <= len(data):
            raise ValueError(f"tensor '{name}': data_offsets outside the data")
        out.append((name, data[begin:end]))
    return out


def file_digest(model, name):
    """The SHA-256 of the file NAME beside MODEL, as hex."""
    with open(os.path.join(os.path.dirname(model) or ".", name), "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def sealed_header(header, data, model, files):
    """The header with a digest of every tensor in its metadata (first),
    and of each file of FILES beside MODEL (those sealed before kept)."""
    meta = {k: v for k, v in header.get("__metadata__", {}).items()
            if not k.startswith(PREFIX)}
    for name, raw in tensors(header, data):
        meta[PREFIX + name] = hashlib.sha256(raw).hexdigest()
    for name in files:
        meta[FILE_PREFIX + name] = file_digest(model, name)
    out = {"__metadata__": meta}
    out.update((k, v) for k, v in header.items() if k != "__metadata__")
    return out


def write(path, header, data):
    """Write the file (atomically): the header, spaces to 8 bytes, data."""
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)  # keep the data 8-byte aligned
    tmp = path + ".tmp.seal"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        f.write(data)
    os.replace(tmp, path)


def check(header, data, model):
    """The problems of the stored digests, one line each ([] when right)."""
    meta = header.get("__metadata__", {})
    problems = []
    for name, raw in tensors(header, data):
        want = meta.get(PREFIX + name)
        if want is None:
            problems.append(f"tensor '{name}': no digest")
        elif want != hashlib.sha256(raw).hexdigest():
            problems.append(f"tensor '{name}': its bytes do not match its digest")
    for key, want in meta.items():
        if not key.startswith(FILE_PREFIX):
            continue
        name = key[len(FILE_PREFIX):]
        try:
            if file_digest(model, name) != want:
                problems.append(f"file '{name}': its bytes do not match its digest")
        except OSError as e:
            problems.append(f"file '{name}': {e.strerror}")
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("models", nargs="+", metavar="FILE")
    ap.add_argument("--check", action="store_true",
                    help="verify the digests, change nothing")
    ap.add_argument("--with", dest="files", action="append", default=[],
                    metavar="NAME", help="also seal the file NAME beside "
                    "the model (repeatable)")
    args = ap.parse_args()
    status = 0
    for path in args.models:
        try:
            header, data = read(path)
            if args.check:
                problems = check(header, data, path)
                for p in problems:
                    print(f"{path}: {p}")
                if problems:
                    status = max(status, 1)
                else:
                    files = sum(k.startswith(FILE_PREFIX)
                                for k in header.get("__metadata__", {}))
                    print(f"{path}: {len(tensors(header, data))} tensors and "
                          f"{files} files, every digest right")
                continue
            write(path, sealed_header(header, data, path, args.files), data)
            print(f"{path}: sealed {len(tensors(header, data))} tensors"
                  + "".join(f", {n}" for n in args.files))
        except (OSError, ValueError, KeyError, TypeError) as e:
            print(f"{path}: {e}", file=sys.stderr)
            status = 2
    sys.exit(status)


if __name__ == "__main__":
    main()
