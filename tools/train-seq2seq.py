#!/usr/bin/env python3
"""Train Lab 6's small translation model (an instructor tool).

The task is synthetic and generated here: a number from 0 to 9999 written
in English words ("three thousand seven hundred forty two") is translated
into German words ("drei tausend sieben hundert zwei und vierzig"). German
says the units before the tens, so the model must reorder, not copy.

The model is Lab 6's: a GRU encoder whose last hidden state is the
context, and a GRU decoder that sees [embedding; context] at every step
and predicts from [embedding; hidden; context] (Cho et al., 2014). It is
trained with teacher forcing and Adam, then written to
labs/06-seq2seq/data/ as:

    model.safetensors   the weights, named as PyTorch's state_dict, with
                        the SHA-256 of each tensor's bytes in its metadata
                        ("sha256:NAME"), and of each vocabulary
                        ("file-sha256:NAME"), which the grader checks
    src.vocab, tgt.vocab  one token per line; the line number is its id
    test.tsv            the held-out numbers: English <TAB> German

Students never run this: the committed files are its output. It needs
PyTorch (CPU is enough: a few minutes on two cores) and nothing else:

    python3 tools/train-seq2seq.py [--out labs/06-seq2seq/data] [--seed 0]

The numbers are split once, by the seed: 1000 are held out for the test
set and never trained on. The script prints the held-out exact-match
accuracy of greedy decoding at the end; the grader recomputes it.
"""
import argparse
import hashlib
import json
import os
import random
import struct

import torch
from torch import nn

PAD, SOS, EOS = 0, 1, 2
SPECIALS = ["<pad>", "<sos>", "<eos>"]

EN_ONES = ["zero", "one", "two", "three", "four", "five", "six", "seven",
           "eight", "nine", "ten", "eleven", "twelve", "thirteen",
           "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
           "nineteen"]
EN_TENS = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy",
           "eighty", "ninety"]
DE_ONES = ["null", "eins", "zwei", "drei", "vier", "fuenf", "sechs",
           "sieben", "acht", "neun", "zehn", "elf", "zwoelf", "dreizehn",
           "vierzehn", "fuenfzehn", "sechzehn", "siebzehn", "achtzehn",
           "neunzehn"]
DE_TENS = ["", "", "zwanzig", "dreissig", "vierzig", "fuenfzig", "sechzig",
           "siebzig", "achtzig", "neunzig"]


def english(n):
    """3742 -> 'three thousand seven hundred forty two'."""
    if n == 0:
        return ["zero"]
    words = []
    if n >= 1000:
        words += [EN_ONES[n // 1000], "thousand"]
        n %= 1000
    if n >= 100:
        words += [EN_ONES[n // 100], "hundred"]
        n %= 100
    if n >= 20:
        words.append(EN_TENS[n // 10])
        n %= 10
        if n:
            words.append(EN_ONES[n])
    elif n:
        words.append(EN_ONES[n])
    return words


def german(n):
    """3742 -> 'drei tausend sieben hundert zwei und vierzig'."""
    if n == 0:
        return ["null"]
    words = []
    # "ein" before hundert, tausend and und; "eins" standing alone
    unit = lambda d: "ein" if d == 1 else DE_ONES[d]
    if n >= 1000:
        words += [unit(n // 1000), "tausend"]
        n %= 1000
    if n >= 100:
        words += [unit(n // 100), "hundert"]
        n %= 100
    if n >= 20:
        if n % 10:
            words += [unit(n % 10), "und"]
        words.append(DE_TENS[n // 10])
    elif n:
        words.append(DE_ONES[n])
    return words


class Encoder(nn.Module):
    def __init__(self, v, e, h):
        super().__init__()
        self.embedding = nn.Embedding(v, e)
        self.rnn = nn.GRU(e, h)

    def forward(self, src):  # (S, B)
        _, hidden = self.rnn(self.embedding(src))
        return hidden  # (1, B, H): the context


class Decoder(nn.Module):
    def __init__(self, v, e, h):
        super().__init__()
        self.embedding = nn.Embedding(v, e)
        self.rnn = nn.GRU(e + h, h)
        self.fc_out = nn.Linear(e + 2 * h, v)

    def forward(self, token, hidden, context):  # (B,), (1,B,H), (1,B,H)
        emb = self.embedding(token).unsqueeze(0)
        out, hidden = self.rnn(torch.cat((emb, context), dim=2), hidden)
        logits = self.fc_out(torch.cat(
            (emb.squeeze(0), hidden.squeeze(0), context.squeeze(0)), dim=1))
        return logits, hidden


class Seq2Seq(nn.Module):
    def __init__(self, vs, vt, e, h):
        super().__init__()
        self.encoder = Encoder(vs, e, h)
        self.decoder = Decoder(vt, e, h)

    def forward(self, src, tgt_in):  # teacher forcing: (S, B), (T, B)
        context = self.encoder(src)
        hidden, out = context, []
        for t in range(tgt_in.shape[0]):
            logits, hidden = self.decoder(tgt_in[t], hidden, context)
            out.append(logits)
        return torch.stack(out)

    @torch.no_grad()
    def greedy(self, src, steps):
        context = self.encoder(src)
        hidden = context
        token = torch.full((src.shape[1],), SOS, dtype=torch.long)
        out = []
        for _ in range(steps):
            logits, hidden = self.decoder(token, hidden, context)
            token = logits.argmax(dim=1)
            out.append(token)
        return torch.stack(out)


def encode(words, vocab, length, left_pad):
    ids = [vocab[w] for w in words]
    pad = [PAD] * (length - len(ids))
    return pad + ids if left_pad else ids + pad


def write_safetensors(path, tensors, metadata):
    """The tensors as F32, in name order, each with its SHA-256 in the
    metadata as "sha256:NAME" (the layout tools/seal-safetensors.py
    writes; the grader refuses a tensor whose bytes do not match)."""
    metadata = dict(metadata)
    header, blobs, offset = {"__metadata__": metadata}, [], 0
    for name in sorted(tensors):
        t = tensors[name].detach().to(torch.float32).contiguous().cpu()
        data = t.numpy().astype("<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(data)]}
        metadata["sha256:" + name] = hashlib.sha256(data).hexdigest()
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)  # keep the data 8-byte aligned
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for data in blobs:
            f.write(data)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="labs/06-seq2seq/data")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--emb", type=int, default=64)
    ap.add_argument("--hid", type=int, default=256)
    ap.add_argument("--epochs", type=int, default=60)
    args = ap.parse_args()
    random.seed(args.seed)
    torch.manual_seed(args.seed)

    numbers = list(range(10000))
    random.shuffle(numbers)
    test, train = sorted(numbers[:1000]), numbers[1000:]
    src_words = sorted({w for n in range(10000) for w in english(n)})
    tgt_words = sorted({w for n in range(10000) for w in german(n)})
    src_vocab = {w: i for i, w in enumerate(SPECIALS + src_words)}
    tgt_vocab = {w: i for i, w in enumerate(SPECIALS + tgt_words)}
    S = max(len(english(n)) for n in range(10000))
    T = max(len(german(n)) for n in range(10000)) + 1  # and <eos>

    def batch(ns):
        # sources left-padded, so that the last encoder step is a word
        src = torch.tensor([encode(english(n), src_vocab, S, True)
                            for n in ns]).t()
        tgt = torch.tensor([encode(german(n) + ["<eos>"], tgt_vocab, T, False)
                            for n in ns]).t()
        tgt_in = torch.cat((torch.full((1, len(ns)), SOS), tgt[:-1]))
        return src, tgt_in, tgt

    model = Seq2Seq(len(src_vocab), len(tgt_vocab), args.emb, args.hid)
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    loss_fn = nn.CrossEntropyLoss(ignore_index=PAD)
    for epoch in range(args.epochs):
        random.shuffle(train)
        total = 0.0
        for i in range(0, len(train), 128):
            src, tgt_in, tgt = batch(train[i:i + 128])
            logits = model(src, tgt_in)
            loss = loss_fn(logits.reshape(-1, logits.shape[-1]),
                           tgt.reshape(-1))
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            total += loss.item()
        if epoch % 10 == 9 or epoch == args.epochs - 1:
            print(f"epoch {epoch + 1}: loss {total / (len(train) / 128):.4f}")

    model.eval()
    src, _, tgt = batch(test)
    out = model.greedy(src, T)
    inv = {i: w for w, i in tgt_vocab.items()}
    right = 0
    for b, n in enumerate(test):
        words = []
        for t in range(T):
            if out[t, b].item() == EOS:
                break
            words.append(inv[out[t, b].item()])
        right += words == german(n)
    acc = 100.0 * right / len(test)
    print(f"held-out exact match: {right}/{len(test)} = {acc:.2f}%")

    os.makedirs(args.out, exist_ok=True)
    # the vocabularies belong to the model: their digests go into its
    # metadata ("file-sha256:NAME"), which the grader checks
    meta = {"task": "English number words to German",
            "pad": str(PAD), "sos": str(SOS), "eos": str(EOS),
            "src_len": str(S), "tgt_len": str(T),
            "heldout_accuracy": f"{acc:.2f}", "seed": str(args.seed)}
    for name, vocab in (("src.vocab", src_vocab), ("tgt.vocab", tgt_vocab)):
        text = "".join(w + "\n" for w in vocab).encode()
        with open(os.path.join(args.out, name), "wb") as f:
            f.write(text)
        meta["file-sha256:" + name] = hashlib.sha256(text).hexdigest()
    write_safetensors(os.path.join(args.out, "model.safetensors"),
                      model.state_dict(), meta)
    with open(os.path.join(args.out, "test.tsv"), "w") as f:
        for n in test:
            f.write(" ".join(english(n)) + "\t" + " ".join(german(n)) + "\n")


if __name__ == "__main__":
    main()
