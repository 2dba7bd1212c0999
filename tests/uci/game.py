"""A real UCI client (python-chess) plays a game against an engine.

    python3 game.py PLIES DEPTH COMMAND...

The engine plays both sides, PLIES half-moves or until the game ends, each move a search
to DEPTH, with Threads 2 and Hash 16 set; every move must be legal; then `quit`, after
which the engine must end by itself with status 0. Prints one line of JSON: the moves and
the engine's exit status, and whether the game is over (a mate, a draw) where it stopped."""
import json
import sys

import chess
import chess.engine


def main():
    plies, depth, command = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
    engine = chess.engine.SimpleEngine.popen_uci(command, timeout=120)
    engine.configure({"Threads": 2, "Hash": 16})
    board = chess.Board()
    moves = []
    for _ in range(plies):
        if board.is_game_over():
            break
        result = engine.play(board, chess.engine.Limit(depth=depth))
        if result.move not in board.legal_moves:
            raise SystemExit(f"illegal move {result.move} in {board.fen()}")
        moves.append(result.move.uci())
        board.push(result.move)
    name = engine.id.get("name", "")
    engine.quit()
    print(json.dumps({"moves": moves, "over": board.is_game_over(), "returncode": engine.transport.get_returncode(), "name": name}))


if __name__ == "__main__":
    main()
