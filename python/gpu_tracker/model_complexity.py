# SPDX-License-Identifier: MIT
"""Model complexity of a PyTorch module: its parameters, and the
multiply-accumulates (MACs) of one forward pass on a zero input of a given
size, counted by forward hooks on the layers that run.

What one MAC is here: one multiplication by a weight and its addition into a
sum.  Bias additions, activations, normalization, pooling and the gate
arithmetic of recurrent cells are not MACs.  Counted layers:

    Linear                      output elements x in_features
    Conv1d, Conv2d, Conv3d      output elements x in_channels/groups x kernel volume
    RNN, GRU, LSTM              time steps (all sequences) x the layer's weights
                                (1, 3 or 4 gates x hidden x (input + hidden),
                                per layer and direction, plus LSTM's projection)
    MultiheadAttention          the q, k, v and output projections, and the
                                two products q.k and attention.v

Every other layer that runs is named in not_counted, so a total is never
passed off as complete when it is not; computation written directly in a
forward() (torch.matmul, the @ operator) is not seen at all.

torch is imported only by model_complexity() itself, which is only called
with a model, so the package never loads torch for a program that does not.
"""
from __future__ import annotations

import dataclasses as dclass
import math


@dclass.dataclass
class ModelComplexity:
    input_size: list
    parameters: int
    trainable_parameters: int
    macs: int
    macs_by_layer_type: dict[str, int]
    not_counted: list[str]  # types of the layers that ran and whose MACs are not in macs

    def to_json(self) -> dict:
        return dclass.asdict(self)


def model_complexity(model, input_size, dtype=None) -> ModelComplexity:
    """Counts the parameters of model (a torch.nn.Module) and the MACs of one
    forward pass on zeros of input_size ((batch, *shape), or a list of such
    shapes for a forward() that takes several tensors), of dtype (default:
    the model's first floating-point parameter's, else float32) on the
    model's device.  The pass runs in eval mode (no dropout, no update of
    batch-norm statistics); each layer's mode is restored afterwards.
    TypeError for a model that is not a module, ValueError for a bad size or
    a forward pass that fails on such an input."""
    import torch

    if not isinstance(model, torch.nn.Module):
        raise TypeError(f'model must be a torch.nn.Module, not {type(model).__name__}')
    sizes = _sizes(input_size)
    params = list(model.parameters())
    floating = [p for p in params if p.is_floating_point()]
    device = params[0].device if params else torch.device('cpu')
    dtype = dtype or (floating[0].dtype if floating else torch.float32)
    macs, not_counted = {}, set()
    hooks = _add_hooks(model, macs, not_counted)
    modes = [(m, m.training) for m in model.modules()]
    try:
        model.eval()
        # Gradients on: PyTorch's fused inference path for transformer layers
        # (taken without them) skips the attention module and its hook.
        with torch.enable_grad():
            model(*[torch.zeros(s, dtype=dtype, device=device) for s in sizes])
    except Exception as error:
        raise ValueError(f'the forward pass of {type(model).__name__} failed on zeros of size '
                         f'{input_size!r}: {error}') from error
    finally:
        for h in hooks:
            h.remove()
        for m, training in modes:
            m.training = training
    return ModelComplexity(
        input_size=[list(s) for s in sizes] if len(sizes) > 1 else list(sizes[0]),
        parameters=sum(p.numel() for p in params),
        trainable_parameters=sum(p.numel() for p in params if p.requires_grad),
        macs=sum(macs.values()), macs_by_layer_type=dict(sorted(macs.items())),
        not_counted=sorted(not_counted))


def _sizes(input_size):
    def one(s):
        if not isinstance(s, (tuple, list)) or not s or not all(
                isinstance(d, int) and not isinstance(d, bool) and d > 0 for d in s):
            raise ValueError(f'input_size {input_size!r} is invalid: give a shape such as (batch, features), '
                             'positive integers, or a list of shapes')
        return tuple(s)
    if isinstance(input_size, list) and input_size and all(isinstance(s, (tuple, list)) for s in input_size):
        return [one(s) for s in input_size]
    return [one(input_size)]


def _add_hooks(model, macs, not_counted):
    """Hooks on each counted layer and each other leaf layer.  (The out_proj
    of MultiheadAttention is a Linear whose forward never runs: its weights
    are used inside the attention's own forward, counted there.)"""
    hooks = []
    for m in model.modules():
        counter = _counter(m)
        if counter is not None:
            name = type(m).__name__

            def count(module, inputs, output, counter=counter, name=name):
                macs[name] = macs.get(name, 0) + counter(module, inputs, output)
            hooks.append(m.register_forward_hook(count))
        elif next(m.children(), None) is None:
            hooks.append(m.register_forward_hook(
                lambda module, inputs, output: not_counted.add(type(module).__name__)))
    return hooks


def _counter(m):
    import torch.nn as nn
    for kind, counter in ((nn.Linear, _linear), (nn.Conv1d, _conv), (nn.Conv2d, _conv), (nn.Conv3d, _conv),
                          (nn.RNNBase, _rnn), (nn.MultiheadAttention, _attention)):
        if isinstance(m, kind):
            return counter
    return None


def _first_tensor(output):
    return output[0] if isinstance(output, (tuple, list)) else output


def _linear(m, inputs, output):
    return _first_tensor(output).numel() * m.in_features


def _conv(m, inputs, output):
    return output.numel() * (m.in_channels // m.groups) * math.prod(m.kernel_size)


_GATES = {'RNN_TANH': 1, 'RNN_RELU': 1, 'GRU': 3, 'LSTM': 4}


def _rnn(m, inputs, output):
    x = inputs[0]
    if hasattr(x, 'batch_sizes'):  # a PackedSequence: its data holds every step of every sequence
        steps = x.data.shape[0]
    else:
        steps = x.shape[0] if x.dim() == 2 else x.shape[0] * x.shape[1]
    gates, hidden = _GATES[m.mode], m.hidden_size
    state = getattr(m, 'proj_size', 0) or hidden  # what each step passes on
    directions = 2 if m.bidirectional else 1
    per_step = 0
    for layer in range(m.num_layers):
        width = m.input_size if layer == 0 else state * directions
        weights = gates * hidden * (width + state) + (state * hidden if state != hidden else 0)
        per_step += directions * weights
    return steps * per_step


def _attention(m, inputs, output):
    query = inputs[0]
    key = inputs[1] if len(inputs) > 1 else query
    if query.dim() == 2:  # unbatched: (L, E)
        batch, q_len, k_len = 1, query.shape[0], key.shape[0]
    elif m.batch_first:
        batch, q_len, k_len = query.shape[0], query.shape[1], key.shape[1]
    else:
        batch, q_len, k_len = query.shape[1], query.shape[0], key.shape[0]
    e = m.embed_dim
    attended = k_len + (m.bias_k is not None) + bool(m.add_zero_attn)  # keys the queries attend to
    projections = q_len * e * e + k_len * m.kdim * e + k_len * m.vdim * e + q_len * e * e
    return batch * (projections + 2 * q_len * attended * e)
