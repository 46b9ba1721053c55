"""GRPO on KBGym with TRL's environment_factory, on a GPU or (for a smoke run) on CPU.

    python scripts/examples/grpo_trl.py --model PATH_OR_NAME [--library SNAPSHOT] [--limit 50]
        [--num-generations 8] [--reward both|curation|answer] [--out runs/grpo]
        [--learn-library] [--commit-rule best|best_positive]
        [--cpu] [--max-steps N] [--report-to none|tensorboard|wandb|...]
    python scripts/examples/grpo_trl.py --tiny --cpu --max-steps 2 --out runs/grpo-smoke

What it needs (none of it is a KBGym dependency): ``pip install 'kbgym[trl]'`` (TRL >= 1.16,
datasets, and torch for the machine; vLLM for ``--use-vllm``), and a chat model with tool
calling whose chat template TRL recognises for parsing tool calls (``trl.chat_template_utils.
add_response_schema``: the Qwen2.5/Qwen3/Qwen3.5, Llama 3.1/3.2, GLM-4-MoE, gpt-oss, LFM2,
Gemma 4 and DeepSeek-R1-distill templates; another template needs its ``response_template``
set by hand). ``--tiny`` builds a 2-layer Qwen3 with a tokenizer trained here on KBGym text
and TRL's own Qwen3 template (no download), for wiring checks only.

How it is wired: every dataset row names a training question and a starting library and
carries the chat: a system message (the prompt file ``agents/prompts/rl_session.md``) and the
question's task block (``kbgym.rl.session_rows``). TRL builds a pool of ``KBGymSession``
instances, calls ``reset(**row)`` before each rollout (a fresh fork of the row's library, so
the G generations of one row start from one state) and appends what it returns (the budget
line), exposes the tool methods (search, read, answer, add, edit, delete, link, link_many,
unlink, done), and adds the session's ``get_reward()`` as its reward column by itself - so no
``reward_funcs`` is passed. With ``--learn-library`` the rollouts fork a
``kbgym.runs.learner.LibraryLearner``'s library instead, and a callback commits the best
rollout of each question group after every optimizer step: the library learns during GRPO and
``OUT/library`` is an ordinary training run (``kbgym replay``, ``kbgym probe make/test/table``).
Judge the trained curator with ``kbgym probe`` on held-out questions, never on the training pool.
"""

from __future__ import annotations

import argparse
import functools
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def build_tiny_model(out: str | Path, texts: list[str], *, vocab_size: int = 600,
                     seed: int = 0) -> str:
    """A 2-layer Qwen3 (random weights, seeded) and a byte-level BPE tokenizer trained here on
    ``texts``, with TRL's Qwen3 chat template (so TRL parses its tool calls), saved to
    ``out``. No hub access."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast, Qwen3Config, Qwen3ForCausalLM
    from trl.chat_template_utils import qwen3_chat_template

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<tool_call>", "</tool_call>",
                "<tool_response>", "</tool_response>", "<think>", "</think>"]
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=specials,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False)
    tok.train_from_iterator(texts, trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|im_end|>",
                                   pad_token="<|endoftext|>", bos_token=None)
    fast.chat_template = qwen3_chat_template
    fast.save_pretrained(out)
    torch.manual_seed(seed)
    cfg = Qwen3Config(vocab_size=len(fast), hidden_size=64, intermediate_size=128,
                      num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                      head_dim=16, max_position_embeddings=8192, tie_word_embeddings=True,
                      eos_token_id=fast.eos_token_id, pad_token_id=fast.pad_token_id,
                      bos_token_id=None)
    model = Qwen3ForCausalLM(cfg)
    model.generation_config.eos_token_id = fast.eos_token_id
    model.generation_config.pad_token_id = fast.pad_token_id
    model.save_pretrained(out)
    return str(out)


def make_trainer(args, rows, factory, callbacks=()):
    """The GRPOTrainer of this wiring (no reward_funcs: TRL adds KBGymSession.get_reward)."""
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    extra = {}
    if args.cpu:
        extra.update(use_cpu=True, bf16=False, fp16=False)
    return GRPOTrainer(
        model=args.model,
        train_dataset=Dataset.from_list(rows),
        environment_factory=factory,
        callbacks=list(callbacks),
        args=GRPOConfig(
            output_dir=args.out,
            num_generations=args.num_generations,
            per_device_train_batch_size=args.batch_size or args.num_generations,
            max_completion_length=args.max_completion_length,
            max_tool_calling_iterations=args.max_tool_calls,
            max_steps=args.max_steps if args.max_steps else -1,
            num_train_epochs=1,
            learning_rate=args.learning_rate,
            use_vllm=args.use_vllm,
            log_completions=False,
            logging_steps=1,
            save_strategy="no",
            report_to=args.report_to,
            seed=args.seed,
            **extra,
        ),
    )


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", help="a local checkpoint path or a model name")
    ap.add_argument("--tiny", action="store_true",
                    help="build a tiny offline model under OUT/tiny-model (wiring checks only)")
    ap.add_argument("--universe", default=None, help="universe.json (default: the default one)")
    ap.add_argument("--library", default="", help="snapshot to start from (default: B1)")
    ap.add_argument("--limit", type=int, default=50, help="training questions to use")
    ap.add_argument("--num-generations", type=int, default=8)
    ap.add_argument("--batch-size", type=int, default=None,
                    help="per-device batch (default: --num-generations, one question a step)")
    ap.add_argument("--reward", choices=("both", "curation", "answer"), default="both")
    ap.add_argument("--reward-k", type=int, default=16)
    ap.add_argument("--max-completion-length", type=int, default=4096)
    ap.add_argument("--max-tool-calls", type=int, default=45,
                    help="tool-calling turns per rollout (n1 + n2 by default)")
    ap.add_argument("--learning-rate", type=float, default=1e-6)
    ap.add_argument("--learn-library", action="store_true",
                    help="rollouts fork a LibraryLearner's library, committed every step")
    ap.add_argument("--commit-rule", choices=("best", "best_positive"), default="best")
    ap.add_argument("--use-vllm", action="store_true")
    ap.add_argument("--cpu", action="store_true", help="train on CPU (fp32; smoke runs)")
    ap.add_argument("--max-steps", type=int, default=0, help="stop after N steps (0: 1 epoch)")
    ap.add_argument("--report-to", default="none",
                    help="TRL/transformers loggers: none, tensorboard, wandb, ... (default none)")
    ap.add_argument("--prompt", default="rl_session",
                    help="prompt file name under agents/prompts/ (or a path)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="runs/grpo")
    ap.add_argument("--overwrite", action="store_true",
                    help="with --learn-library: replace the run in OUT/library")
    return ap


def run(args):
    """Build everything and train; returns (trainer, learner or None)."""
    sys.path.insert(0, str(ROOT))
    from kbgym.env.env import load_universe
    from kbgym.rl import KBGymSession, library_callback, session_rows
    from kbgym_agents.llm.skills import load_skill

    u, upath = load_universe(args.universe)
    prompt = load_skill(args.prompt)
    rows = session_rows(u, split="train", limit=args.limit, system_prompt=prompt,
                        libraries=[args.library] if args.library else None)
    config = {"reward": args.reward, "reward_k": args.reward_k}
    if args.tiny:
        texts = [prompt] + [r["prompt"][-1]["content"] for r in rows] + \
            [n.text for n in list(u.nodes)[:2000]]
        args.model = build_tiny_model(Path(args.out) / "tiny-model", texts, seed=args.seed)
    if not args.model:
        raise SystemExit("give --model PATH_OR_NAME (or --tiny)")
    learner, callbacks = None, []
    if args.learn_library:
        from kbgym.runs.learner import LibraryLearner

        learner = LibraryLearner(u, Path(args.out) / "library", config=config,
                                 rule=args.commit_rule, universe_path=upath,
                                 overwrite=args.overwrite)
        callbacks.append(library_callback(learner))
    factory = functools.partial(KBGymSession, u, config, learner=learner)
    trainer = make_trainer(args, rows, factory, callbacks)
    trainer.train()
    return trainer, learner


def main() -> None:
    args = parser().parse_args()
    try:
        import trl  # noqa: F401
        import datasets  # noqa: F401
    except ImportError as err:
        sys.exit(f"grpo_trl.py needs TRL and datasets ({err}); pip install 'kbgym[trl]'")
    trainer, learner = run(args)
    for row in trainer.state.log_history:
        if "reward" in row:
            print({k: row[k] for k in ("step", "reward", "rewards/KBGymSession/mean")
                   if k in row})
    if learner is not None:
        print(f"library run: {learner.root} ({learner.commits} commits, "
              f"{learner.iterations} committed rollouts)")


if __name__ == "__main__":
    main()
