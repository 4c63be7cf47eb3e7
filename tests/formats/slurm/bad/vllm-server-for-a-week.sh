#!/bin/bash
#SBATCH --job-name=serve
#SBATCH --partition=h100-serve
#SBATCH --nodes=1
#SBATCH --gpus-per-node=h100:2 # expect: GL105
#SBATCH --time=7-00:00:00

vllm serve Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size 2 --max-model-len 32768
