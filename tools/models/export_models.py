# Exports the real models of bench/README.md's model table to ONNX with random weights (fixed seeds,
# nothing downloaded), with reference inputs and ONNX Runtime's outputs as .npy, into a cache folder.
#
#   bash tools/models/setup.sh      # once, as root: Debian's torch/torchvision + a venv with transformers
#   /opt/rlx-models-venv/bin/python tools/models/export_models.py [--out DIR] [--only resnet18,bert]
#
# Each model lands in DIR/NAME/ (DIR defaults to $RLX_MODEL_CACHE or ~/.cache/rlx/models):
#   model.onnx, in_<param>.npy per input (param = the Relax parameter name rlx gives the input),
#   ort_<i>.npy per output, meta.json (inputs, outputs, what the model is). A model already exported
#   with the same recipe version is skipped. Sizes marked "@N" in meta.json are a second input set of
#   the same model file (dynamic dims): DIR/NAME/size_N/in_*.npy and ort_*.npy.
import argparse
import json
import os
import re
import sys

import numpy as np

RECIPE = 2  # bump to re-export everything
OPSET = 17


def relax_param(name):
    """The Relax parameter name rlx's ONNX importer gives a graph input (TVM's sanitizing)."""
    s = re.sub(r"[^0-9A-Za-z_]", "_", name)
    return s if s[:1].isalpha() else "input_" + s


def torchvision_model(ctor, **kw):
    def build():
        import torch
        import torchvision
        torch.manual_seed(0)
        m = getattr(torchvision.models, ctor)(weights=None, **kw)
        randomize_batchnorm(m)
        m.eval()
        return m, {"x": np.random.RandomState(0).standard_normal((1, 3, 224, 224)).astype(np.float32)}, None
    return build


def small_resnet():
    """A reduced-width ResNet (BasicBlocks of 16-32-64-128 channels) on 1x3x64x64: a few hundred KB."""
    import torch
    from torchvision.models.resnet import BasicBlock, ResNet

    class Narrow(ResNet):
        def __init__(self):
            super().__init__(BasicBlock, [1, 1, 1, 1], num_classes=10)
            # torchvision's ResNet fixes the widths at 64..512; rebuild the stages narrower
            self.inplanes = 16
            self.conv1 = torch.nn.Conv2d(3, 16, 7, 2, 3, bias=False)
            self.bn1 = torch.nn.BatchNorm2d(16)
            self.layer1 = self._make_layer(BasicBlock, 16, 1)
            self.layer2 = self._make_layer(BasicBlock, 32, 1, stride=2)
            self.layer3 = self._make_layer(BasicBlock, 64, 1, stride=2)
            self.layer4 = self._make_layer(BasicBlock, 128, 1, stride=2)
            self.fc = torch.nn.Linear(128, 10)

    torch.manual_seed(0)
    m = Narrow()
    randomize_batchnorm(m)
    return m.eval(), {"x": np.random.RandomState(0).standard_normal((1, 3, 64, 64)).astype(np.float32)}, None


def randomize_batchnorm(m):
    """Running statistics and affine parameters away from the identity, so BatchNorm is tested; layers
    that torchvision initializes to zero (ViT's classifier head) get random weights too."""
    import torch
    g = torch.Generator().manual_seed(1)
    for mod in m.modules():
        if isinstance(mod, torch.nn.Linear) and not mod.weight.detach().any():
            mod.weight.data.copy_(torch.randn(mod.weight.shape, generator=g) / mod.in_features ** 0.5)
        if isinstance(mod, torch.nn.BatchNorm2d):
            n = mod.num_features
            mod.running_mean.copy_(0.1 * torch.randn(n, generator=g))
            mod.running_var.copy_(1 + 0.2 * torch.rand(n, generator=g))
            mod.weight.data.copy_(1 + 0.1 * torch.randn(n, generator=g))
            mod.bias.data.copy_(0.1 * torch.randn(n, generator=g))


def bert(layers=12, hidden=768, heads=12, inter=3072, vocab=30522, seq=128, dynamic=False, sizes=()):
    def build():
        import torch
        from transformers import BertConfig, BertModel
        torch.manual_seed(0)
        cfg = BertConfig(num_hidden_layers=layers, hidden_size=hidden, num_attention_heads=heads,
                         intermediate_size=inter, vocab_size=vocab)
        model = BertModel(cfg).eval()

        class Wrap(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.m = model

            def forward(self, input_ids, attention_mask):
                out = self.m(input_ids=input_ids, attention_mask=attention_mask)
                return out.last_hidden_state, out.pooler_output

        def inputs(batch, n):
            rng = np.random.RandomState(n)
            mask = np.ones((batch, n), np.int64)
            mask[:, n - n // 4:] = 0  # padded tail: the attention mask matters
            return {"input_ids": rng.randint(0, vocab, (batch, n)).astype(np.int64), "attention_mask": mask}

        axes = {"input_ids": {0: "batch", 1: "seq"}, "attention_mask": {0: "batch", 1: "seq"}} if dynamic else None
        return Wrap().eval(), inputs(1, seq), {"dynamic_axes": axes, "sizes": {f"b{b}_s{n}": inputs(b, n) for b, n in sizes}}
    return build


def gpt2(decode=False, seq=128, past=128):
    def build():
        import torch
        from transformers import GPT2Config, GPT2LMHeadModel
        torch.manual_seed(0)
        cfg = GPT2Config()
        model = GPT2LMHeadModel(cfg).eval()
        rng = np.random.RandomState(0)
        L, H, D = cfg.n_layer, cfg.n_head, cfg.n_embd // cfg.n_head
        if not decode:
            class Prefill(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.m = model

                def forward(self, input_ids):
                    return self.m(input_ids=input_ids, use_cache=False).logits
            return Prefill().eval(), {"input_ids": rng.randint(0, cfg.vocab_size, (1, seq)).astype(np.int64)}, None

        class Decode(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.m = model

            def forward(self, input_ids, past_keys, past_values):
                pkv = tuple((past_keys[i], past_values[i]) for i in range(L))
                out = self.m(input_ids=input_ids, past_key_values=pkv, use_cache=True)
                keys = torch.stack([k for k, _ in out.past_key_values])
                values = torch.stack([v for _, v in out.past_key_values])
                return out.logits, keys, values
        kv = lambda: (0.5 * rng.standard_normal((L, 1, H, past, D))).astype(np.float32)
        return Decode().eval(), {"input_ids": rng.randint(0, cfg.vocab_size, (1, 1)).astype(np.int64),
                                 "past_keys": kv(), "past_values": kv()}, None
    return build


def whisper_encoder():
    import torch
    from transformers import WhisperConfig
    from transformers.models.whisper.modeling_whisper import WhisperEncoder
    torch.manual_seed(0)
    cfg = WhisperConfig(d_model=384, encoder_layers=4, encoder_attention_heads=6, encoder_ffn_dim=1536,
                        decoder_layers=4, decoder_attention_heads=6, decoder_ffn_dim=1536, num_mel_bins=80)
    enc = WhisperEncoder(cfg).eval()

    class Wrap(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.m = enc

        def forward(self, input_features):
            return self.m(input_features).last_hidden_state
    x = np.random.RandomState(0).standard_normal((1, 80, 3000)).astype(np.float32)
    return Wrap().eval(), {"input_features": x}, None


MODELS = {
    # name: (builder, what, small: runs in make test)
    "resnet_small": (small_resnet, "ResNet, BasicBlocks 16-32-64-128, 1x3x64x64 (test model)", True),
    "bert_2layer": (bert(layers=2, hidden=128, heads=4, inter=512, vocab=1000, seq=32, dynamic=True, sizes=[(2, 48)]),
                    "BERT, 2 layers, hidden 128, dynamic batch and seq: 1x32 and 2x48 (test model)", True),
    "resnet18": (torchvision_model("resnet18"), "torchvision ResNet-18, 1x3x224x224", False),
    "resnet50": (torchvision_model("resnet50"), "torchvision ResNet-50, 1x3x224x224", False),
    "mobilenet_v2": (torchvision_model("mobilenet_v2"), "torchvision MobileNetV2, 1x3x224x224", False),
    "efficientnet_b0": (torchvision_model("efficientnet_b0"), "torchvision EfficientNet-B0, 1x3x224x224", False),
    "convnext_tiny": (torchvision_model("convnext_tiny"), "torchvision ConvNeXt-Tiny, 1x3x224x224", False),
    "vit_b_32": (torchvision_model("vit_b_32"), "torchvision ViT-B/32, 1x3x224x224", False),
    "swin_t": (torchvision_model("swin_t"), "torchvision Swin-T, 1x3x224x224", False),
    "bert_base": (bert(seq=128), "BERT-base, seq 128", False),
    "gpt2_prefill": (gpt2(), "GPT-2 small LM, prefill of 128 tokens", False),
    "gpt2_decode": (gpt2(decode=True), "GPT-2 small LM, one-token decode, 128-token KV cache as inputs", False),
    "whisper_tiny_encoder": (whisper_encoder, "Whisper-tiny encoder, 80x3000 mel frames", False),
    "bert_dynamic": (bert(layers=2, hidden=256, heads=4, inter=1024, vocab=2000, seq=64, dynamic=True, sizes=[(2, 96)]),
                     "BERT 2 layers, hidden 256, dynamic batch and seq: 1x64 and 2x96 from one import", False),
}


def ort_outputs(path, feeds, threads=1):
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    return sess.run(None, feeds)


def write_set(folder, feeds, outs):
    os.makedirs(folder, exist_ok=True)
    for name, v in feeds.items():
        np.save(os.path.join(folder, "in_%s.npy" % relax_param(name)), v)
    for i, v in enumerate(outs):
        np.save(os.path.join(folder, "ort_%d.npy" % i), v)


def export(name, out_dir):
    import torch
    builder, what, small = MODELS[name]
    folder = os.path.join(out_dir, name)
    meta_path = os.path.join(folder, "meta.json")
    if os.path.exists(meta_path) and json.load(open(meta_path)).get("recipe") == RECIPE:
        print("%-22s cached" % name)
        return
    model, feeds, extra = builder()
    extra = extra or {}
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "model.onnx")
    names = list(feeds)
    args = tuple(torch.from_numpy(feeds[n]) for n in names)
    # Traced with gradients on: torch's nn.MultiheadAttention takes a fused fast path, which the ONNX
    # exporter cannot export, when gradients are off (ViT).
    torch.onnx.export(model, args, path + ".tmp", input_names=names, opset_version=OPSET,
                      dynamic_axes=extra.get("dynamic_axes"), do_constant_folding=True)
    os.replace(path + ".tmp", path)
    outs = ort_outputs(path, feeds)
    write_set(folder, feeds, outs)
    sizes = {}
    for tag, f in (extra.get("sizes") or {}).items():
        write_set(os.path.join(folder, "size_" + tag), f, ort_outputs(path, f))
        sizes[tag] = {relax_param(n): list(v.shape) for n, v in f.items()}
    meta = {"recipe": RECIPE, "what": what, "small": small, "opset": OPSET,
            "inputs": {relax_param(n): {"onnx": n, "shape": list(v.shape), "dtype": str(v.dtype)} for n, v in feeds.items()},
            "outputs": [list(o.shape) for o in outs], "sizes": sizes, "bytes": os.path.getsize(path)}
    with open(meta_path + ".tmp", "w") as f:
        json.dump(meta, f, indent=1)
    os.replace(meta_path + ".tmp", meta_path)
    print("%-22s %6.1f MB  outputs %s" % (name, meta["bytes"] / 1e6, meta["outputs"]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.environ.get("RLX_MODEL_CACHE", os.path.expanduser("~/.cache/rlx/models")))
    ap.add_argument("--only", default="")
    a = ap.parse_args()
    only = [s for s in a.only.split(",") if s]
    for name in MODELS:
        if only and not any(name.startswith(o) for o in only):
            continue
        try:
            export(name, a.out)
        except Exception as e:  # one model's exporter failure does not stop the others
            print("%-22s FAILED: %s: %s" % (name, type(e).__name__, str(e)[:300]), file=sys.stderr)


if __name__ == "__main__":
    main()
