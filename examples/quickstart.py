"""The README's Gymnasium example, runnable: one demo task, a scripted plan, the reward at the end."""

import gymnasium as gym

import silo_gym  # noqa: F401  (importing registers the silo/... ids)

env = gym.make("silo/demo-TASK-004")
observation, info = env.reset(seed=0)
print("instruction:", observation)
print("tools:", len(info["tools"]), "e.g.", info["tools"][0]["name"])

observation, reward, terminated, truncated, info = env.step({"tool": "forecast_report", "input": {}})
weighted = silo_gym.format_number(__import__("json").loads(observation)["output"]["weightedAmount"]["amount"])
observation, reward, terminated, truncated, info = env.step({"answer": f"The weighted open pipeline is ${weighted}"})
print("reward:", reward, "passed:", info["passed"], "terminated:", terminated)
env.close()
