#!/bin/bash

# Parse the test context to get expected length and file path
expected_length=$(echo "$RL_SCORER_CONTEXT" | jq -r '.expected_length')
file_path=$(echo "$RL_SCORER_CONTEXT" | jq -r '.file_path')

# Read the file contents
file_contents=$(cat "$file_path")

# Get the actual length by counting characters in file contents
actual_length=$(echo -n "$file_contents" | wc -m)

# Compare lengths and exit with appropriate code
# Calculate difference between actual and expected length
diff=$(( actual_length > expected_length ? actual_length - expected_length : expected_length - actual_length ))

# Calculate score based on difference (1.0 when equal, decreasing linearly as difference increases)
# Use bc for floating point math
score=$(echo "scale=2; 1.0 - ($diff / $expected_length)" | bc)

# Ensure score doesn't go below 0
if (( $(echo "$score < 0" | bc -l) )); then
    echo "0.0"
else
    echo "$score"
fi
