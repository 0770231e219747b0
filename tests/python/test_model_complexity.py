# SPDX-License-Identifier: MIT
# gt-test: no-san: counts PyTorch models' parameters in Python, no library call
"""Model complexity of PyTorch models (Debian's python3-torch, CPU), against
parameter and MAC counts worked out by hand in the comments."""
import json

import pytest

torch = pytest.importorskip('torch')
nn = torch.nn

import gpu_tracker as gput  # noqa: E402
from conftest import run_python  # noqa: E402


def test_two_layer_mlp():
    model = nn.Sequential(nn.Linear(10, 20), nn.ReLU(), nn.Linear(20, 5))
    c = gput.model_complexity(model, (4, 10))
    # parameters: 10*20 + 20 + 20*5 + 5 = 325
    # MACs: 4 rows x (10*20 + 20*5) = 1200
    assert (c.parameters, c.trainable_parameters, c.macs) == (325, 325, 1200)
    assert c.macs_by_layer_type == {'Linear': 1200}
    assert c.not_counted == ['ReLU'] and c.input_size == [4, 10]


def test_small_cnn_with_a_frozen_layer():
    model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Conv2d(8, 16, 3), nn.Flatten(), nn.Linear(64, 10))
    for p in model[0].parameters():
        p.requires_grad = False
    c = gput.model_complexity(model, (2, 3, 8, 8))
    # conv1: out 2x8x8x8 = 1024 elements x 3*3*3 = 27648 MACs; 8*27 + 8 = 224 parameters
    # pool: 2x8x4x4; conv2 (no padding): out 2x16x2x2 = 128 x 8*3*3 = 9216; 16*72 + 16 = 1168
    # linear: 2 x 64*10 = 1280; 650
    assert c.parameters == 224 + 1168 + 650 and c.trainable_parameters == 1168 + 650
    assert c.macs_by_layer_type == {'Conv2d': 27648 + 9216, 'Linear': 1280}
    assert c.macs == 38144
    assert c.not_counted == ['Flatten', 'MaxPool2d', 'ReLU']


def test_grouped_conv1d_and_conv3d():
    model = nn.Sequential(nn.Conv1d(4, 6, 3, groups=2))
    # out 1x6x8 = 48 elements x (4/2)*3 = 288; parameters 6*2*3 + 6 = 42
    c = gput.model_complexity(model, (1, 4, 10))
    assert (c.parameters, c.macs) == (42, 288)
    model = nn.Conv3d(2, 3, (1, 2, 2), bias=False)
    # out 1x3x2x3x3 = 54 elements x 2*1*2*2 = 432; parameters 3*2*4 = 24
    c = gput.model_complexity(model, (1, 2, 2, 4, 4))
    assert (c.parameters, c.macs, c.not_counted) == (24, 432, [])


class LastOutput(nn.Module):
    """A recurrent layer whose output tuple is reduced to its first item."""

    def __init__(self, rnn):
        super().__init__()
        self.rnn = rnn

    def forward(self, x):
        return self.rnn(x)[0]


def test_lstm_two_layers():
    model = LastOutput(nn.LSTM(input_size=8, hidden_size=16, num_layers=2, batch_first=True))
    c = gput.model_complexity(model, (3, 5, 8))
    # layer 0: 4 gates x 16 x (8 + 16) = 1536 weights, 2*4*16 = 128 biases
    # layer 1: 4 x 16 x (16 + 16) = 2048 weights, 128 biases
    # MACs: 3 sequences x 5 steps x (1536 + 2048) = 53760
    assert c.parameters == 1536 + 128 + 2048 + 128
    assert c.macs == 53760 and c.macs_by_layer_type == {'LSTM': 53760}


def test_bidirectional_gru_sequence_first_and_rnn():
    c = gput.model_complexity(LastOutput(nn.GRU(4, 6, bidirectional=True)), (7, 2, 4))
    # per direction 3 gates x 6 x (4 + 6) = 180 weights, 36 biases; 14 steps x 2 x 180 = 5040
    assert (c.parameters, c.macs) == (2 * 216, 5040)
    c = gput.model_complexity(LastOutput(nn.RNN(3, 5)), (4, 3))  # unbatched: 4 steps
    # 5 x (3 + 5) = 40 weights, 10 biases; 4 x 40 = 160
    assert (c.parameters, c.macs) == (50, 160)


def test_lstm_with_projection():
    c = gput.model_complexity(LastOutput(nn.LSTM(4, 8, proj_size=3)), (2, 1, 4))
    # 4 gates x 8 x (4 + 3) = 224, projection 3 x 8 = 24, biases 64: 312 parameters
    # 2 steps x (224 + 24) = 496
    assert (c.parameters, c.macs) == (312, 496)


class SelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.attention = nn.MultiheadAttention(8, 2, batch_first=True)

    def forward(self, x):
        return self.attention(x, x, x)[0]


def test_multihead_attention():
    c = gput.model_complexity(SelfAttention(), (2, 5, 8))
    # per sequence (L = S = 5, E = 8): q, k, v projections 3 x 5*8*8 = 960, q.k 5*5*8 = 200,
    # attention.v 200, output projection 5*8*8 = 320: 1680; 2 sequences: 3360
    # parameters: in_proj 3*64 + 24 = 216, out_proj 64 + 8 = 72
    assert (c.parameters, c.macs) == (288, 3360)
    assert c.macs_by_layer_type == {'MultiheadAttention': 3360} and c.not_counted == []


def test_transformer_layer_attention_is_seen_and_modes_are_restored():
    layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, batch_first=True)
    layer.train()
    c = gput.model_complexity(layer, (1, 5, 8))
    # attention 1680 (above); feed-forward 5 x (8*16 + 16*8) = 1280
    assert c.macs_by_layer_type == {'Linear': 1280, 'MultiheadAttention': 1680}
    assert c.not_counted == ['Dropout', 'LayerNorm']
    assert all(m.training for m in layer.modules())


def test_bad_arguments_are_explained():
    with pytest.raises(TypeError, match='model must be a torch.nn.Module, not str'):
        gput.model_complexity('resnet', (1, 3))
    with pytest.raises(ValueError, match=r'input_size \(1, 0\) is invalid'):
        gput.model_complexity(nn.Linear(3, 2), (1, 0))
    with pytest.raises(ValueError, match=r'the forward pass of Linear failed on zeros of size \(1, 4\): '):
        gput.model_complexity(nn.Linear(3, 2), (1, 4))


def test_recorded_with_the_run():
    model = nn.Sequential(nn.Linear(10, 20), nn.ReLU(), nn.Linear(20, 5))
    with gput.Tracker(sleep_time=0.05, model=model, input_size=(4, 10)) as tracker:
        pass
    assert tracker.resource_usage.model_complexity.macs == 1200
    assert tracker.to_json()['model_complexity'] == {
        'input_size': [4, 10], 'parameters': 325, 'trainable_parameters': 325, 'macs': 1200,
        'macs_by_layer_type': {'Linear': 1200}, 'not_counted': ['ReLU']}
    assert str(tracker).rstrip('\n').endswith(
        'Model complexity:\n   Input size: 4, 10\n   Parameters: 325\n   Trainable parameters: 325\n'
        '   MACs: 1200\n   MACs by layer type:\n      Linear: 1200\n   Not counted: ReLU')
    with pytest.raises(ValueError, match='model and input_size go together'):
        gput.Tracker(model=model)


def test_recorded_in_the_tracking_file():
    """The tracking file's static data holds the counts after the Python
    package's columns, in CSV and SQLite, and the analysis shows them."""
    import csv
    import sqlite3
    model = nn.Sequential(nn.Linear(10, 20), nn.ReLU(), nn.Linear(20, 5), nn.GELU())
    for name in ('mc.csv', 'mc.sqlite'):
        with gput.Tracker(sleep_time=0.05, model=model, input_size=(4, 10), tracking_file=name, overwrite=True):
            pass
        if name.endswith('.csv'):
            header, row = list(csv.reader(open(name)))[:2]
            static = dict(zip(header, row))
            assert header[:9] == ['ram_unit', 'gpu_ram_unit', 'time_unit', 'ram_system_capacity',
                                  'gpu_ram_system_capacity', 'system_core_count', 'n_expected_cores',
                                  'system_gpu_count', 'n_expected_gpus']
        else:
            db = sqlite3.connect(name)
            cur = db.execute('SELECT * FROM static_data')
            static = dict(zip([d[0] for d in cur.description], cur.fetchone()))
            db.close()
        assert {k: static[k] for k in static if k.startswith('model_')} == {
            'model_parameters': '325', 'model_trainable_parameters': '325', 'model_macs': '1200',
            'model_not_counted': 'GELU,ReLU', 'model_input_size': '[4, 10]'}
    # Without a tracking file there is nothing to record, and nothing fails.
    with gput.Tracker(sleep_time=0.05, model=model, input_size=(4, 10)):
        pass


def test_integer_input_for_an_embedding():
    model = nn.Sequential(nn.Embedding(10, 4), nn.Flatten(), nn.Linear(12, 2))
    # parameters: 10*4 + 12*2 + 2 = 66; MACs: the Linear's 2 x 12*2 = 48 (a lookup multiplies nothing)
    c = gput.model_complexity(model, (2, 3), dtype=torch.long)
    assert (c.parameters, c.macs, c.not_counted) == (66, 48, ['Embedding', 'Flatten'])
