"""Sensor preprocessing in NumPy (every operation here is one LEAPP maps to torch)."""
import numpy as np


def normalise(lidar, imu, mean, std):
    """Clip and scale the range scan, derive heading features from the IMU."""
    ranges = np.clip(lidar, 0.05, 5.0) / 5.0
    yaw = np.arctan2(imu[:, 1:2], imu[:, 0:1])
    imu_n = (imu - mean) / std
    return np.concatenate([ranges, np.sin(yaw), np.cos(yaw), imu_n], axis=-1).astype(np.float32)
