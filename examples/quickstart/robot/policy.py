"""The navigation policy: preprocessing, an MLP, and a scaled tanh output."""
import numpy as np
import torch
import torch.nn as nn

from .preprocess import normalise


class NavigationPolicy:
    def __init__(self, n_beams: int = 16, seed: int = 0):
        torch.manual_seed(seed)
        self.mean = np.zeros((1, 4), dtype=np.float32)
        self.std = np.full((1, 4), 2.0, dtype=np.float32)
        self.mlp = nn.Sequential(nn.Linear(n_beams + 6, 64), nn.ELU(), nn.Linear(64, 64), nn.ELU(),
                                 nn.Linear(64, 2)).eval()
        self.max_speed = 0.8

    @torch.no_grad()
    def act(self, lidar, imu):
        features = torch.from_numpy(normalise(lidar, imu, self.mean, self.std))
        wheel_speeds = torch.tanh(self.mlp(features)) * self.max_speed
        return wheel_speeds.numpy().copy()
