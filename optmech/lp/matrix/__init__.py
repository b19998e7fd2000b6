"""The pieces of a mechanism-matrix LP that the user and local designers share.

A mechanism ``X[i, r] = P(output r | input i)`` over a neighbour graph (Ghosh, Roughgarden &
Sundararajan (2012)): the user LPs take the graph of a query, the local model the complete graph
on its inputs. Both rest on the modules here, and neither imports the other:

- the setting and its size limits (`setting`, `size_model`) and the matrix result
  (`result`: `UserMechanism`, the exact release of a row);
- the privacy rows and objectives of the whole LP (`build`, `objectives`, `bounds`) and the
  repair of a solver's point by the graph's lower closure or, keeping the caller's
  constraints, the envelope closure (`repair`);
- the constrained envelope LP over any neighbour graph (`neighbours`, `rows`, `envelope`,
  `envelope_setting`, `envelope_engine`): the local model on the complete graph, the user LPs
  with the caller's constraints on theirs.
"""
