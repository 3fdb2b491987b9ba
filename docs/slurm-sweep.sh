#!/bin/sh
# docs/slurm-sweep.sh: an example Slurm batch script that runs one colosim
# experiment across several machines under MPI (docs/SCALE.md).
#
#   sbatch docs/slurm-sweep.sh experiments/colti.ini --resume
#
# --resume also starts a fresh experiment, so the same command, submitted
# again after a time-out, runs only what is missing (and refuses a config
# that changed under the same experiment name).
#
# Rank 0 hands out runs and writes the database (on the file system of the
# node it runs on: put the database on a shared or local disk that outlives
# the job); every other rank simulates one run at a time in a forked child.
# Rank 0 sleeps between messages, so the job asks for one task per core
# and starts one rank more than that: Open MPI (--oversubscribe) puts the
# extra rank on the first node, beside rank 0.
#
# Needs: colosim built with MPI (`make MPI=1`; `colosim run --help` ends
# with the MPI library), the same binary and the traces under the same paths
# on every node (a shared file system), and Open MPI's mpirun, which reads
# the allocation from Slurm.  Only rank 0 reads the config; it sends the
# text to the others.
#
# Adjust the resources below to your cluster; nothing else needs editing.
#SBATCH --job-name=colosim-sweep
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=32
#SBATCH --cpus-per-task=1
#SBATCH --time=02:00:00
#SBATCH --output=colosim-sweep-%j.out
set -eu

CONFIG=${1:?usage: sbatch docs/slurm-sweep.sh CONFIG [colosim run options]}
shift
COLOSIM=${COLOSIM:-build/colosim}

# Slurm sends SIGTERM before the time limit kills the job; each run is
# stored in its own transaction, so a killed sweep keeps every finished
# run and `--resume` runs only what is missing.
exec mpirun --oversubscribe -np "$((SLURM_NTASKS + 1))" \
	"$COLOSIM" run "$CONFIG" "$@"
