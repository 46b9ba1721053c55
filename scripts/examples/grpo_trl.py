"""GRPO on KBGym with TRL's environment_factory: the wiring, for a GPU machine.

    python scripts/examples/grpo_trl.py --model PATH_OR_NAME [--library SNAPSHOT] [--limit 50]
        [--num-generations 8] [--reward both|curation] [--out runs/grpo]

What it needs (none of it is a KBGym dependency):
- ``pip install "trl>=1.16" datasets`` plus torch for the machine (and vLLM if you want
  ``--use-vllm``); TRL's environment_factory needs a transformers version whose
  ``get_json_schema`` reads method docstrings;
- a chat model with tool calling (e.g. a Qwen3 instruct checkpoint), given as a local path or
  a name your machine may download;
- one GPU with room for the model, its reference copy and the generations
  (a 0.6B-1.7B model fits on a 24 GB card).

How it is wired: every dataset row names a training question and a starting library
(``kbgym.rl.session_rows``); TRL builds a pool of ``KBGymSession`` instances, calls
``reset(**row)`` before each rollout (a fresh fork of the row's library, so the G generations
of one row start from one state), exposes the session's tool methods (search, read, answer,
add, edit, delete, link, link_many, unlink, done) to the model, and the reward function reads
``get_reward()``: answer F1 plus the curation reward (a frozen scripted reader's gain on a
pool of training questions) with ``--reward both``, the curation reward alone with
``--reward curation``. Judge the trained curator afterwards with ``kbgym probe`` on held-out
questions, never on the training pool.
"""

from __future__ import annotations

import argparse
import functools
import sys


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", required=True, help="a local checkpoint path or a model name")
    ap.add_argument("--universe", default=None, help="universe.json (default: the default one)")
    ap.add_argument("--library", default="", help="snapshot to start from (default: B1)")
    ap.add_argument("--limit", type=int, default=50, help="training questions to use")
    ap.add_argument("--num-generations", type=int, default=8)
    ap.add_argument("--reward", choices=("both", "curation"), default="both")
    ap.add_argument("--max-completion-length", type=int, default=4096)
    ap.add_argument("--use-vllm", action="store_true")
    ap.add_argument("--out", default="runs/grpo")
    args = ap.parse_args()
    try:
        from datasets import Dataset
        from trl import GRPOConfig, GRPOTrainer
    except ImportError as err:
        sys.exit(f"grpo_trl.py needs TRL and datasets on a GPU machine ({err}); "
                 f"pip install 'trl>=1.16' datasets")

    from kbgym.rl import KBGymSession, session_rows

    rows = session_rows(args.universe, split="train", limit=args.limit,
                        libraries=[args.library] if args.library else None)

    def reward_func(completions, environments, **_):
        return [env.get_reward() for env in environments]

    trainer = GRPOTrainer(
        model=args.model,
        train_dataset=Dataset.from_list(rows),
        reward_funcs=reward_func,
        environment_factory=functools.partial(KBGymSession, args.universe,
                                              {"reward": args.reward}),
        args=GRPOConfig(
            output_dir=args.out,
            num_generations=args.num_generations,
            max_completion_length=args.max_completion_length,
            use_vllm=args.use_vllm,
            log_completions=True,
            logging_steps=1,
        ),
    )
    trainer.train()


if __name__ == "__main__":
    main()
