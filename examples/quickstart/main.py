"""Drive the quickstart robot around a toy world for a few seconds."""
import numpy as np

from robot.policy import NavigationPolicy


def run(steps: int = 30, seed: int = 1):
    rng = np.random.default_rng(seed)
    policy = NavigationPolicy()
    heading = 0.0
    for _ in range(steps):
        lidar = rng.uniform(0.2, 6.0, (1, 16)).astype(np.float32)
        imu = np.array([[np.cos(heading), np.sin(heading), rng.normal(0, 0.1), rng.normal(0, 0.1)]],
                       dtype=np.float32)
        left, right = policy.act(lidar, imu)[0]
        heading += 0.1 * float(right - left)
    print(f"final heading {heading:.3f} rad")


if __name__ == "__main__":
    run()
